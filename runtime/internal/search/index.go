package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// The search index of discovery mode is built by the generator and
// embedded in the generated code as one string, which the server decodes
// on the first search: a Go literal of thousands of structs would grow the
// code and the start-up work for every server, searched or not.
//
// Format: a header line "oa2mcp-index-v1 OPS", then one line per term,
// sorted: the term (lower-case letters of any script and digits), a
// space, its inverse document frequency times 100, then per operation
// holding it the distance to the previous operation's position and the
// weight (1-31). Numbers are base-32 digits, low digit first, written
// with the characters of indexDigits: the first 32 end a number, the last
// 32 say more digits follow. No line needs escaping.

const (
	indexHeader = "oa2mcp-index-v1"
	indexDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	// maxWeight is the largest quantized posting weight.
	maxWeight = 31
)

// IndexTerm is one term of a search index: how rare it is among the
// operations (its inverse document frequency) and which operations hold
// it, how strongly.
type IndexTerm struct {
	Term string
	IDF  float64
	// Postings are sorted by Op, one per operation.
	Postings []Posting
}

// Posting says that the operation at position Op of
// Discovery.Operations holds a term with Weight, in (0, 1].
type Posting struct {
	Op     int
	Weight float64
}

// IndexHead is the first line of the index of ops operations, newline
// included: a server checks it to refuse an index built for other
// operations.
func IndexHead(ops int) string { return indexHeader + " " + strconv.Itoa(ops) + "\n" }

// EncodeSearchIndex encodes the index of ops operations; terms must be
// sorted, unique and made of lower-case letters and digits.
func EncodeSearchIndex(ops int, terms []IndexTerm) (string, error) {
	var b strings.Builder
	b.WriteString(IndexHead(ops))
	for i, t := range terms {
		if !validTerm(t.Term) {
			return "", fmt.Errorf("index term %q: only lower-case letters and digits", t.Term)
		}
		if i > 0 && terms[i-1].Term >= t.Term {
			return "", fmt.Errorf("index terms not sorted and unique at %q", t.Term)
		}
		b.WriteString(t.Term)
		b.WriteByte(' ')
		putNumber(&b, int(math.Round(max(t.IDF, 0)*100)))
		prev := 0
		for j, p := range t.Postings {
			if p.Op < prev || p.Op >= ops || (j > 0 && p.Op == prev) {
				return "", fmt.Errorf("index term %q: posting %d out of order or range", t.Term, p.Op)
			}
			putNumber(&b, p.Op-prev)
			putNumber(&b, quantize(p.Weight))
			prev = p.Op
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// validTerm accepts what searchTerm makes: lower-case letters (of any
// script) and digits, nothing a line or a raw string literal could not
// hold.
func validTerm(t string) bool {
	for _, r := range t {
		if !(unicode.IsLetter(r) && !unicode.IsUpper(r)) && !unicode.IsDigit(r) {
			return false
		}
	}
	return t != ""
}

// quantize maps a weight in (0, 1] onto 1..maxWeight: every posting
// keeps some weight.
func quantize(w float64) int {
	q := int(math.Round(w * maxWeight))
	return min(max(q, 1), maxWeight)
}

func putNumber(b *strings.Builder, n int) {
	for n >= 32 {
		b.WriteByte(indexDigits[32+n%32])
		n /= 32
	}
	b.WriteByte(indexDigits[n])
}

// searchIndex is a decoded index.
type searchIndex struct {
	ops   int
	terms map[string]indexEntry
}

type indexEntry struct {
	idf      float64
	postings []posting
}

type posting struct {
	op     int32
	weight float32 // in (0, 1]
}

// digitValue maps an index character onto its value and whether more
// digits follow; -1 for a character not in indexDigits.
var digitValue = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(indexDigits); i++ {
		t[indexDigits[i]] = int8(i)
	}
	return t
}()

// decodeSearchIndex reads an encoded index for ops operations.
func decodeSearchIndex(text string, ops int) (*searchIndex, error) {
	head, body, _ := strings.Cut(text, "\n")
	if head != indexHeader+" "+strconv.Itoa(ops) {
		return nil, fmt.Errorf("search index header %q does not match %d operations", head, ops)
	}
	idx := &searchIndex{ops: ops, terms: make(map[string]indexEntry, strings.Count(body, "\n"))}
	for line := range strings.SplitSeq(strings.TrimSuffix(body, "\n"), "\n") {
		if line == "" {
			continue
		}
		term, data, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("search index line %q has no data", line)
		}
		e, err := decodeEntry(data, ops)
		if err != nil {
			return nil, fmt.Errorf("search index term %q: %w", term, err)
		}
		idx.terms[term] = e
	}
	return idx, nil
}

// decodeEntry reads the numbers of one term.
func decodeEntry(data string, ops int) (indexEntry, error) {
	r := &numberReader{s: data}
	idf := r.next()
	e := indexEntry{idf: float64(idf) / 100, postings: make([]posting, 0, len(data)/2)}
	op := 0
	for r.more() {
		op += r.next()
		w := r.next()
		if r.err != nil {
			return e, r.err
		}
		if op >= ops || w < 1 || w > maxWeight {
			return e, fmt.Errorf("bad posting at byte %d", r.pos)
		}
		e.postings = append(e.postings, posting{op: int32(op), weight: float32(w) / maxWeight})
	}
	return e, r.err
}

// numberReader reads the base-32 numbers of an index line.
type numberReader struct {
	s   string
	pos int
	err error
}

func (r *numberReader) more() bool { return r.err == nil && r.pos < len(r.s) }

func (r *numberReader) next() int {
	n, scale := 0, 1
	for r.err == nil {
		if r.pos >= len(r.s) || scale > 1<<25 {
			r.err = fmt.Errorf("number cut short at byte %d", r.pos)
			return 0
		}
		v := int(digitValue[r.s[r.pos]])
		r.pos++
		if v < 0 {
			r.err = fmt.Errorf("bad character at byte %d", r.pos-1)
			return 0
		}
		n += (v % 32) * scale
		if v < 32 {
			return n
		}
		scale *= 32
	}
	return 0
}
