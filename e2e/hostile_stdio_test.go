//go:build linux && e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// The hostile stdio cases: a real petstore server process reading a
// seeded mix of valid requests and lines that are no message (not JSON,
// truncated, deeply nested, invalid UTF-8, JSON that is no JSON-RPC
// message, batches where the protocol has none, an empty batch, a line
// over 16 MiB). Every valid request gets exactly one answer, every bad
// line one JSON-RPC error (-32700 for what is not JSON, -32600 for the
// rest; id null unless the line had a usable id), in order, and the
// process ends cleanly at end of input.

// stdioLine is one line sent and what it must bring back.
type stdioLine struct {
	text string
	id   string // a request's id, or a bad line's usable id (as JSON)
	code int    // a bad line's error code; 0 for a valid request
}

const stdioInit = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`

// badStdioLine is a generated line that is no message.
func badStdioLine(r *rand.Rand, n int) stdioLine {
	valid := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 100000+n)
	switch r.IntN(10) {
	case 0:
		return stdioLine{text: "garbage not json", code: -32700}
	case 1:
		return stdioLine{text: valid[:1+r.IntN(len(valid)-2)], code: -32700}
	case 2:
		return stdioLine{text: strings.Repeat("[", 1+r.IntN(20000)), code: -32700}
	case 3:
		return stdioLine{text: `{"jsonrpc":"2.0","id":1,"method":"ping","params":"` + "\xff\xfe" + `"}` + "\x00", code: -32700}
	case 4:
		return stdioLine{text: []string{"42", `"text"`, "null", "{}", "true"}[r.IntN(5)], code: -32600}
	case 5:
		id := fmt.Sprintf(`"h-%d"`, n)
		return stdioLine{text: `{"jsonrpc":"1.0","id":` + id + `,"method":"ping"}`, id: id, code: -32600}
	case 6:
		id := fmt.Sprintf(`"h-%d"`, n)
		return stdioLine{text: `{"id":` + id + `}`, id: id, code: -32600}
	case 7:
		return stdioLine{text: "[" + valid + "," + valid + "]", code: -32600}
	case 8:
		return stdioLine{text: "[]", code: -32600}
	}
	return stdioLine{text: strings.Repeat(`{"a":`, 1+r.IntN(5000)), code: -32700}
}

// goodStdioLine is a valid request with id n.
func goodStdioLine(r *rand.Rand, n int) stdioLine {
	id := fmt.Sprint(n)
	switch r.IntN(3) {
	case 0:
		return stdioLine{text: `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`, id: id}
	case 1:
		return stdioLine{text: `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`, id: id}
	}
	return stdioLine{text: `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"petstore_get_pet","arguments":{"pet_id":` + fmt.Sprint(1+r.IntN(3)) + `}}}`, id: id}
}

// stdioScript is a seeded session: a bad line first (before initialize),
// initialize, then good and bad lines mixed.
func stdioScript(r *rand.Rand, n int) []stdioLine {
	lines := []stdioLine{badStdioLine(r, 0), {text: stdioInit, id: `"init"`}, {text: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}}
	for i := 1; i <= n; i++ {
		if r.IntN(3) == 0 {
			lines = append(lines, badStdioLine(r, i))
		} else {
			lines = append(lines, goodStdioLine(r, i))
		}
	}
	return lines
}

// runStdio sends lines to a fresh server process and says what is wrong
// with its answers, or "".
func runStdio(t *testing.T, server, backend string, lines []stdioLine) string {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, server, "--base-url", backend, "--log-level", "error")
	var in bytes.Buffer
	for _, l := range lines {
		in.WriteString(l.text + "\n")
	}
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Sprintf("the server ended with %v: %s", err, truncate(stderr.String(), 400))
	}
	got := map[string]int{}
	var nullCodes []int
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return "an answer is not JSON: " + truncate(sc.Text(), 200)
		}
		if string(m.ID) == "null" || m.ID == nil {
			if m.Error == nil {
				return "an answer without id is no error: " + truncate(sc.Text(), 200)
			}
			nullCodes = append(nullCodes, m.Error.Code)
			continue
		}
		got[string(m.ID)]++
	}
	var wantNull []int
	for _, l := range lines {
		switch {
		case l.code != 0 && l.id == "":
			wantNull = append(wantNull, l.code)
		case l.id != "" && got[l.id] != 1:
			return fmt.Sprintf("%d answers for id %s (line %s), want 1", got[l.id], l.id, truncate(l.text, 80))
		}
	}
	if fmt.Sprint(nullCodes) != fmt.Sprint(wantNull) {
		return fmt.Sprintf("errors without id %v, want %v", nullCodes, wantNull)
	}
	return ""
}

func TestHostileStdio(t *testing.T) {
	root := testenv.RepoRoot(t)
	bins := buildPetstore(t, root)
	backend := startBackend(t, bins)
	t.Run("line over 16 MiB", func(t *testing.T) {
		huge := `{"jsonrpc":"2.0","id":99,"method":"ping","params":{"pad":"` + strings.Repeat("a", 17<<20) + `"}}`
		lines := []stdioLine{{text: stdioInit, id: `"init"`}, {text: huge, code: -32600}, {text: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, id: "1"}}
		if f := runStdio(t, bins.server, backend, lines); f != "" {
			t.Fatal(f)
		}
	})
	seed := hostileSeed(t)
	t.Logf("seed %d (replay: OA2MCP_HOSTILE_SEED=%d)", seed, seed)
	r := rand.New(rand.NewPCG(seed, seed>>1|1))
	for round := 0; round < 4; round++ {
		lines := stdioScript(r, 120)
		f := runStdio(t, bins.server, backend, lines)
		if f == "" {
			continue
		}
		// Shrink: drop lines (but initialize) while it still fails.
		min := lines
		for i := len(min) - 1; i >= 0 && i < len(min); i-- {
			if min[i].text == stdioInit {
				continue
			}
			next := append(append([]stdioLine(nil), min[:i]...), min[i+1:]...)
			if runStdio(t, bins.server, backend, next) != "" {
				min = next
			}
		}
		var shown []string
		for _, l := range min {
			shown = append(shown, truncate(l.text, 120))
		}
		t.Fatalf("seed %d round %d: %s\nminimal input (%d lines):\n%s\n-> %s", seed, round, f, len(min), strings.Join(shown, "\n"), runStdio(t, bins.server, backend, min))
	}
}
