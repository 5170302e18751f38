package load

import (
	"context"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"testdata/syntax.yaml", []string{
			"testdata/syntax.yaml:8:18: invalid YAML: this '[' is never closed; add the closing ']'",
		}},
		{"testdata/dangling.yaml", []string{
			`testdata/dangling.yaml:14:17: $ref "#/components/schemas/Missing" cannot be resolved: map key "Missing" not found; fix the reference or add what it points to`,
			`testdata/dangling.yaml:23:17: $ref to testdata/nofile.yaml cannot be read: no such file or directory; fix the path of the reference`,
		}},
		// $refs in YAML flow mappings are found by the key scanner, so
		// each is reported at its key and all of them in one run.
		{"testdata/badflow.yaml", []string{
			`testdata/badflow.yaml:7:72: $ref "#/components/schemas/Nope" cannot be resolved: map key "Nope" not found; fix the reference or add what it points to`,
			`testdata/badflow.yaml:8:72: $ref "#/components/schemas/Nope2" cannot be resolved: map key "Nope2" not found; fix the reference or add what it points to`,
		}},
		{"testdata/remote.yaml", []string{
			`testdata/remote.yaml:14:17: remote $ref to https://example.com/schemas/pet.yaml is not allowed; download the file and refer to it by a relative path, or allow the host with --allow-remote-refs example.com`,
		}},
		{"testdata/version.yaml", []string{
			`testdata/version.yaml:1:1: unsupported OpenAPI version "4.0.0"; convert the spec to OpenAPI 3.2, 3.1, 3.0 or Swagger 2.0`,
		}},
		{"testdata/missing.yaml", []string{
			"testdata/missing.yaml: cannot read the spec: no such file or directory; check the file name and that it is readable",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc, probs := Load(context.Background(), tt.file, Options{})
			if doc != nil {
				t.Error("document returned despite errors")
			}
			var got []string
			for _, p := range probs {
				got = append(got, p.String())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems:\n%q\nwant:\n%q", len(got), got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("problem %d:\n got %s\nwant %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}
