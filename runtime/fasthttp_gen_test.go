package runtime

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// headerChoices are the values a generated request may carry for each
// header ("" leaves it out): what clients send, what they get wrong, and
// headers the SDK ignores but a shape must tell apart.
func headerChoices() map[string][]string {
	return map[string][]string{
		"Accept":               {"", "application/json, text/event-stream", "application/json", "text/event-stream", "*/*", "text/html"},
		"Content-Type":         {"", "application/json", "application/json; charset=utf-8", "text/plain"},
		"Mcp-Protocol-Version": {"", "2026-07-28", "2025-11-25", "2025-06-18", "1999-01-01"},
		"Mcp-Method":           {"", "tools/call", "tools/list"},
		"Mcp-Name":             {"", "get_pet", "find_pets", "fetch", "fail", "other"},
		"Authorization":        {"", "Bearer a", "Bearer b", "Basic dTpw"},
		"Cookie":               {"", "s=1", "s=2"},
		"X-Request-Id":         {"", "r1", "r2"},
		"Traceparent":          {"", "00-" + testTraceID + "-b7ad6b7169203331-01", "junk"},
		"X-Extra":              {"", "a", "b", "long"},
	}
}

// randomHeaderStep is one tools/call POST with a random header set.
func randomHeaderStep(r *rand.Rand, id int) httpStep {
	tools := []string{"get_pet", "find_pets", "fetch", "fail"}
	args := map[string][]string{
		"get_pet":   {`{"petId":"7"}`, `{"petId":""}`, `[1]`},
		"find_pets": {`{"status":["sold"]}`, `{"status":["sold"],"tags":["a<b&c"]}`},
		"fetch":     {`{"which":"list"}`, `{"which":"empty"}`},
		"fail":      {`{"code":"404"}`, `{"code":"400"}`},
	}
	name := tools[r.IntN(len(tools))]
	meta := ""
	if r.IntN(2) == 0 {
		meta = modernMeta + ","
	}
	idText := strconv.Itoa(id)
	if r.IntN(3) == 0 {
		idText = `"s` + idText + `"`
	}
	as := args[name]
	st := httpStep{body: `{"jsonrpc":"2.0","id":` + idText + `,"method":"tools/call","params":{` + meta + `"name":"` + name + `","arguments":` + as[r.IntN(len(as))] + `}}`,
		header: map[string]string{}}
	choices := headerChoices()
	names := make([]string, 0, len(choices))
	for k := range choices {
		names = append(names, k)
	}
	sort.Strings(names) // a seed replays the same requests
	// mostly what a client that gets it right sends, so that most
	// shapes are learned and the fast path serves their second call
	good := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
		"Mcp-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/call", "Mcp-Name": name}
	if meta == "" {
		good["Mcp-Method"], good["Mcp-Name"] = "", ""
	} else {
		good["Mcp-Protocol-Version"] = "2026-07-28"
	}
	for _, k := range names {
		v := choices[k][r.IntN(len(choices[k]))]
		if g, ok := good[k]; ok && r.IntN(4) != 0 {
			v = g
		}
		if v == "long" {
			v = strings.Repeat("x", 1+r.IntN(8<<10))
		}
		// "" deletes what postScript sets by default
		st.header[k] = v
		if v == "" && k != "Accept" && k != "Content-Type" {
			delete(st.header, k)
		}
	}
	return st
}

// varyOneHeader is st with one header of headerChoices set to another
// of its values (or left out).
func varyOneHeader(r *rand.Rand, st httpStep) httpStep {
	choices := headerChoices()
	names := make([]string, 0, len(choices))
	for k := range choices {
		names = append(names, k)
	}
	sort.Strings(names)
	k := names[r.IntN(len(names))]
	h := map[string]string{}
	for kk, v := range st.header {
		h[kk] = v
	}
	for {
		v := choices[k][r.IntN(len(choices[k]))]
		if v == "long" {
			v = strings.Repeat("y", 1+r.IntN(64))
		}
		if v != st.header[k] {
			h[k] = v
			break
		}
	}
	if h[k] == "" && k != "Accept" && k != "Content-Type" {
		delete(h, k)
	}
	return httpStep{body: st.body, header: h}
}

// TestHTTPFastPathHeaderSets posts seeded scripts of tools/call POSTs
// with random header sets to a server with the fast path and one
// without: every answer must be the same bytes. A failure names the
// seed and the smallest script found that still fails.
func TestHTTPFastPathHeaderSets(t *testing.T) {
	seed := testseed.Seed(t)
	t.Logf("seed %d (replay with OA2MCP_SEED=%d)", seed, seed)
	up := testUpstream(t).URL
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var served int64
	for round := range 8 {
		steps := make([]httpStep, 12)
		for i := range steps {
			steps[i] = randomHeaderStep(r, round*100+i)
		}
		// each step twice (the second of a shape is the fast path's),
		// then each with one header changed: a shape must tell it apart
		steps = append(steps, steps...)
		for i := range 12 {
			steps = append(steps, varyOneHeader(r, steps[i]))
		}
		if i, n, ok := headerScriptDiffers(t, up, steps); ok {
			min := minimiseHeaderScript(t, up, steps)
			t.Fatalf("seed %d: answer %d differs between the fast path and the SDK; smallest failing script:\n%s", seed, i, formatHTTPSteps(min))
		} else {
			served += n
		}
	}
	t.Logf("the fast path served %d calls", served)
	if served < fastServed(1) {
		t.Errorf("the fast path served %d of the generated calls", served)
	}
}

// headerScriptDiffers runs steps through both paths: the first answer
// that differs, and how many calls the fast path served.
func headerScriptDiffers(t *testing.T, up string, steps []httpStep) (int, int64, bool) {
	sdk := postScript(t, fastTestServer(t, up, false), steps)
	fast := fastTestServer(t, up, true)
	got := postScript(t, fast, steps)
	for i := range sdk {
		if got[i] != sdk[i] {
			t.Logf("answer %d:\nfast:\n%s\nsdk:\n%s", i, clipText(got[i]), clipText(sdk[i]))
			return i, fast.fastCalls.Load(), true
		}
	}
	return 0, fast.fastCalls.Load(), false
}

// minimiseHeaderScript drops steps, then headers, while the script
// still fails.
func minimiseHeaderScript(t *testing.T, up string, steps []httpStep) []httpStep {
	fails := func(s []httpStep) bool { _, _, bad := headerScriptDiffers(t, up, s); return bad }
	for i := 0; i < len(steps); {
		shorter := append(append([]httpStep(nil), steps[:i]...), steps[i+1:]...)
		if fails(shorter) {
			steps = shorter
		} else {
			i++
		}
	}
	for i := range steps {
		for k := range steps[i].header {
			h := map[string]string{}
			for kk, v := range steps[i].header {
				if kk != k {
					h[kk] = v
				}
			}
			trial := append([]httpStep(nil), steps...)
			trial[i] = httpStep{body: steps[i].body, header: h}
			if fails(trial) {
				steps = trial
			}
		}
	}
	return steps
}

func formatHTTPSteps(steps []httpStep) string {
	var b strings.Builder
	for _, st := range steps {
		keys := make([]string, 0, len(st.header))
		for k := range st.header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s: %s\n", k, clipText(st.header[k]))
		}
		b.WriteString(st.body + "\n\n")
	}
	return b.String()
}
