// Command pulumi-resource-kubernetes is the Pulumi kubernetes provider, built from the module
// github.com/pulumi/pulumi-kubernetes/provider/v4 (see ../../go.mod for the version).
//
// Upstream's own main in that module embeds schema-embed.json and terraform-mapping-embed.json,
// which its `go generate` step writes and git ignores, so they are not in the module zip and that
// package does not build from the proxy. This main does the same job at start-up instead: it reads
// the module's schema.json and terraform-mapping.json, which ../../post-build copies out of the
// module cache into the plugin folder beside this binary, sets the schema's version as upstream's
// generate.go does, and serves the provider.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

func main() {
	dir, err := selfDir()
	if err != nil {
		fatal(err)
	}
	schema, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil {
		fatal(err)
	}
	mapping, err := os.ReadFile(filepath.Join(dir, "terraform-mapping.json"))
	if err != nil {
		fatal(err)
	}
	if schema, err = withVersion(schema, version.Version); err != nil {
		fatal(err)
	}
	provider.Serve("kubernetes", version.Version, schema, mapping)
}

// selfDir is the real directory of this executable (symbolic links resolved).
func selfDir() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", err
	}
	return filepath.Dir(exe), nil
}

// withVersion sets the top-level "version" of a Pulumi package schema, leaving the rest as is.
func withVersion(schema []byte, v string) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, fmt.Errorf("schema.json: %w", err)
	}
	quoted, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	top["version"] = quoted
	return json.Marshal(top)
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "pulumi-resource-kubernetes: %v (the plugin folder needs schema.json and terraform-mapping.json beside the binary; tools/provider/post-build puts them there)\n", err)
	os.Exit(1)
}
