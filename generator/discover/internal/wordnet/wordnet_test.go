package wordnet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeDict writes a tiny WordNet database (nouns only) into a folder.
func writeDict(t *testing.T, index, data string) string {
	t.Helper()
	dir := t.TempDir()
	head := "  1 licence head line\n"
	for name, text := range map[string]string{"index.noun": head + index, "data.noun": head + data} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDeriveReadsSensesInOrder derives from a two-sense word: the first
// tagged sense's one-word lemmas, not the phrase, the proper name or the
// second sense; a word no API uses gets no line.
func TestDeriveReadsSensesInOrder(t *testing.T) {
	dict := writeDict(t,
		"ticket n 2 1 @ 2 1 00000002 00000003\nrobot n 1 0 1 0 00000004\n",
		"00000002 04 n 04 ticket 0 slip 0 fare_card 0 Coupon 0 001 @ 00000004 n 0000 | a ticket\n"+
			"00000003 04 n 02 ticket 0 ballot 0 000 | a list of candidates\n"+
			"00000004 04 n 01 robot 0 000 | a machine\n")
	opt := Options{Senses: 2, TaggedOnly: true, Parts: []string{"noun"}}
	got, err := Derive(dict, map[string]bool{"ticket": true}, opt, "Notice")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Notice\nticket: slip\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	opt.Hypernyms, opt.TaggedOnly = true, false
	got, err = Derive(dict, map[string]bool{"ticket": true, "robot": true}, opt, "Notice")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Notice\nticket: slip robot ballot\n"; got != want {
		t.Errorf("with hypernyms and untagged senses: got %q, want %q", got, want)
	}
}

// TestDeriveRefusesMalformedLines names the file and line of a broken
// database line.
func TestDeriveRefusesMalformedLines(t *testing.T) {
	dict := writeDict(t, "ticket n 2 0 1 0 00000002\n", "")
	_, err := Derive(dict, map[string]bool{"ticket": true}, Options{Senses: 1, Parts: []string{"noun"}}, "")
	if err == nil || !strings.Contains(err.Error(), "index.noun:2: malformed index line") {
		t.Errorf("got %v, want an error at index.noun:2", err)
	}
	_, err = Derive(t.TempDir(), nil, Options{Parts: []string{"noun"}}, "")
	if err == nil || !strings.Contains(err.Error(), "scripts/install-deps.sh") {
		t.Errorf("a missing database: got %v, want a hint to run scripts/install-deps.sh", err)
	}
}
