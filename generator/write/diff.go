package write

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the LCS table; beyond it the changed middle of a
// file is shown as one replaced block instead of a minimal diff.
const maxDiffCells = 4_000_000

const diffContext = 3

// UnifiedDiff renders one change as a unified diff with a/ and b/ labels.
// Created files diff against /dev/null, deleted files to /dev/null.
func UnifiedDiff(label string, c Change) string {
	from, to := "a/"+label, "b/"+label
	if strings.HasPrefix(label, "/") {
		from, to = label, label
	}
	switch c.Kind {
	case Create:
		from = "/dev/null"
	case Delete:
		to = "/dev/null"
	}
	oldLines, newLines := splitLines(string(c.Old)), splitLines(string(c.New))
	ops := diffLines(oldLines, newLines)
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
	for _, h := range hunks(ops) {
		b.WriteString(h)
	}
	return b.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// op is one line of an edit script: ' ' kept, '-' removed, '+' added.
type op struct {
	kind     byte
	line     string
	old, new int // 1-based line numbers before and after
}

// diffLines computes an edit script: common prefix and suffix are kept,
// and the middle is aligned by a longest common subsequence.
func diffLines(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', a[i], i + 1, i + 1})
	}
	ops = append(ops, middle(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, op{' ', a[ai], ai + 1, bi + 1})
	}
	return ops
}

func middle(a, b []string, offset int) []op {
	var ops []op
	if len(a)*len(b) > maxDiffCells {
		for i, l := range a {
			ops = append(ops, op{'-', l, offset + i + 1, offset + 1})
		}
		for j, l := range b {
			ops = append(ops, op{'+', l, offset + len(a) + 1, offset + j + 1})
		}
		return ops
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], offset + i + 1, offset + j + 1})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i], offset + i + 1, offset + j + 1})
			i++
		default:
			ops = append(ops, op{'+', b[j], offset + i + 1, offset + j + 1})
			j++
		}
	}
	return ops
}

// hunks groups an edit script into unified-diff hunks with context.
func hunks(ops []op) []string {
	var out []string
	for start := 0; start < len(ops); {
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		lo := max(first-diffContext, 0)
		hi := first
		for k := first; k < len(ops) && k-hi <= 2*diffContext; k++ {
			if ops[k].kind != ' ' {
				hi = k
			}
		}
		hi = min(hi+diffContext+1, len(ops))
		out = append(out, renderHunk(ops[lo:hi]))
		start = hi
	}
	return out
}

func renderHunk(ops []op) string {
	var b strings.Builder
	oldN, newN := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			oldN++
		}
		if o.kind != '-' {
			newN++
		}
	}
	oldStart, newStart := ops[0].old, ops[0].new
	if oldN == 0 {
		oldStart--
	}
	if newN == 0 {
		newStart--
	}
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldN, newStart, newN)
	for _, o := range ops {
		b.WriteByte(o.kind)
		b.WriteString(o.line)
		if !strings.HasSuffix(o.line, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
	return b.String()
}
