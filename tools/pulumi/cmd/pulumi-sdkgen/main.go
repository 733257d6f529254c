// Command pulumi-sdkgen writes a package's SDK for TypeScript, Go or Python from its schema.
//
//	pulumi package get-schema ./provider > schema.json
//	pulumi-sdkgen -schema schema.json -language nodejs|go|python -out DIR
//
// Why not `pulumi package gen-sdk`: in Pulumi v3.274.0 it asks the language host of the target
// language to generate the SDK (pkg/cmd/pulumi/packages/packages.go, GenSDK ->
// LanguageRuntime.GeneratePackage), and the module proxy does not serve the Node.js and Go
// language hosts. Those hosts' GeneratePackage binds the schema (codegen/schema.BindSpec) and
// calls the code generator of their language (codegen/nodejs, codegen/go, codegen/python
// GeneratePackage), all in the pkg/v3 module this go.mod already pins for the CLI; this command
// does the same, for a schema that references no other package (raygang's does not).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "pulumi-sdkgen"

func main() {
	schemaPath := flag.String("schema", "", "the package schema (JSON, as `pulumi package get-schema` prints it)")
	language := flag.String("language", "", "nodejs, go or python")
	out := flag.String("out", "", "the folder to write the SDK into (emptied first)")
	flag.Parse()
	if err := run(*schemaPath, *language, *out); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", tool, err)
		os.Exit(1)
	}
}

func run(schemaPath, language, out string) error {
	if schemaPath == "" || language == "" || out == "" {
		return errors.New("-schema, -language and -out are required")
	}
	text, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	files, err := generate(text, language)
	if err != nil {
		return err
	}
	return write(out, files)
}

// generate returns the SDK's files by path, as the language host's GeneratePackage would.
func generate(text []byte, language string) (map[string][]byte, error) {
	var spec schema.PackageSpec
	if err := json.Unmarshal(text, &spec); err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return nil, fmt.Errorf("binding the schema: %w", err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("binding the schema: %w", diags)
	}
	switch language {
	case "nodejs":
		return nodejs.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
	case "go":
		return gogen.GeneratePackage(tool, pkg, nil)
	case "python":
		return python.GeneratePackage(tool, pkg, nil, noPackages{})
	}
	return nil, fmt.Errorf("unknown language %q (nodejs, go or python)", language)
}

// noPackages is the schema loader of a package that refers to no other package: any
// reference to one is an error, which is what this command promises (raygang's schema refers
// only to pulumi.json's built-ins, such as Any).
type noPackages struct{}

func (noPackages) refuse(name string) error {
	return fmt.Errorf("the schema refers to package %q; %s generates SDKs of self-contained schemas only", name, tool)
}

func (l noPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, l.refuse(name)
}

func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, l.refuse(d.Name)
}

func (l noPackages) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, l.refuse(name)
}

func (l noPackages) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, l.refuse(d.Name)
}

// write empties out and writes every file into it, in a stable order.
func write(out string, files map[string][]byte) error {
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		target := filepath.Join(out, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, files[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}
