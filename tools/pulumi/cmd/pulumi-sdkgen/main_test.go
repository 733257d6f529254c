package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A component package of the shape component_provider_host infers: one component, a plain
// object input, an Any input, a string output.
const tiny = `{
  "name": "tiny",
  "version": "0.1.0",
  "resources": {
    "tiny:index:Thing": {
      "isComponent": true,
      "description": "A thing.",
      "inputProperties": {
        "manifest": {"type": "object", "additionalProperties": {"$ref": "pulumi.json#/Any", "plain": true}, "plain": true, "description": "The manifest."},
        "queue": {"$ref": "pulumi.json#/Any", "plain": true, "description": "A queue."}
      },
      "requiredInputs": ["manifest"],
      "properties": {"podGroupName": {"type": "string", "description": "A name."}},
      "required": ["podGroupName"]
    }
  }
}`

func TestEachLanguageWritesItsSDK(t *testing.T) {
	want := map[string]string{
		"nodejs": "thing.ts",
		"go":     filepath.Join("tiny", "thing.go"),
		"python": filepath.Join("pulumi_tiny", "thing.py"),
	}
	for language, file := range want {
		files, err := generate([]byte(tiny), language)
		if err != nil {
			t.Fatalf("%s: %v", language, err)
		}
		out := t.TempDir()
		if err := write(out, files); err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(filepath.Join(out, file))
		if err != nil {
			t.Fatalf("%s: %v", language, err)
		}
		if !strings.Contains(string(text), "The manifest.") {
			t.Errorf("%s: %s lacks the input's description", language, file)
		}
	}
}

func TestAReferenceToAnotherPackageIsRefused(t *testing.T) {
	other := strings.Replace(tiny, `"pulumi.json#/Any"`,
		`"/kubernetes/v4.34.2/schema.json#/types/kubernetes:core/v1:PodSpec"`, 1)
	if _, err := generate([]byte(other), "nodejs"); err == nil {
		t.Fatal("a schema referring to another package was accepted")
	}
}

func TestAnUnknownLanguageIsRefused(t *testing.T) {
	if _, err := generate([]byte(tiny), "cobol"); err == nil || !strings.Contains(err.Error(), "cobol") {
		t.Fatalf("got %v", err)
	}
}

func TestRunNeedsEveryFlag(t *testing.T) {
	if err := run("", "go", t.TempDir()); err == nil {
		t.Fatal("no -schema accepted")
	}
}
