// Command yamlref prints what kubectl sends for each document of a YAML (or JSON) stream:
// the reference our Python loader is tested against.
//
// kubectl reads manifest files through cli-runtime's StreamVisitor, which splits the
// stream with apimachinery's YAMLOrJSONDecoder (buffer 4096, as kubectl passes it) and
// decodes each document into a runtime.RawExtension: sigs.k8s.io/yaml converts YAML to
// JSON (go-yaml v2 typing, then encoding/json), JSON documents pass through as they are.
// It then trims the bytes and skips documents that are empty or null. This command does
// the same, decoding into json.RawMessage, which keeps the bytes exactly as RawExtension
// does, so that the module does not need all of apimachinery's runtime package.
//
// Output, one line per document on stdout:
//
//	doc <JSON>       the document, compacted onto one line (compacting keeps every byte
//	                 of a YAML document's JSON, and a JSON document's numbers as written)
//	error <message>  the error kubectl would report; nothing follows it, as kubectl stops
//
// The exit code is 0 when every document decoded, 1 after an error line.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// The look-ahead kubectl's StreamVisitor gives the decoder to sniff a JSON stream.
const sniffBytes = 4096

func main() {
	out := bufio.NewWriter(os.Stdout)
	code := run(os.Stdin, out)
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "yamlref:", err)
		code = 2
	}
	os.Exit(code)
}

func run(in io.Reader, out io.Writer) int {
	d := utilyaml.NewYAMLOrJSONDecoder(in, sniffBytes)
	for {
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			// One line, whatever the error says.
			fmt.Fprintf(out, "error %s\n", strings.ReplaceAll(err.Error(), "\n", `\n`))
			return 1
		}
		doc := bytes.TrimSpace(raw)
		if len(doc) == 0 || bytes.Equal(doc, []byte("null")) {
			continue
		}
		var line bytes.Buffer
		if err := json.Compact(&line, doc); err != nil {
			fmt.Fprintf(out, "error %s\n", err)
			return 1
		}
		fmt.Fprintf(out, "doc %s\n", line.Bytes())
	}
}
