package fastpath

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestParseFastCall checks the scanner against encoding/json on lines
// that differ in layout, escapes and member order, and that it leaves
// what it must to the SDK.
func TestParseFastCall(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
		args string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":"}\"{","y":[1,{"z":null}],"n":-1.5e3}}}`, true, `{"x":"}\"{","y":[1,{"z":null}],"n":-1.5e3}`},
		{" \t{ \"params\" : { \"arguments\" : [ ] , \"name\" : \"a\" } , \"method\" : \"tools/call\" , \"id\" : \"x y\" , \"jsonrpc\" : \"2.0\" }\r\n", true, `[ ]`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":true}}`, true, `true`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":12}}`, true, `12`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`, true, ``},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"k":{"a":[1]}},"arguments":{}}}`, true, `{}`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`, false, ``}, // duplicate
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\u0061"}}`, false, ``},       // escaped name
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"na\u006de":"a"}}`, false, ``},       // escaped key
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","task":{}}}`, false, ``},  // unknown member
		{`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"a"}}`, false, ``},            // case
		{`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"a"}}`, false, ``},          // id
		{`{"jsonrpc":"2.0","id":01,"method":"tools/call","params":{"name":"a"}}`, false, ``},           // invalid JSON
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1}}}`, false, ``},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}} {}`, false, ``}, // two values
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}`, false, ``},     // cut
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`, false, ``},
		{`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"a"}}`, false, ``},
		{`{"jsonrpc":"2.0","id":12345678901234567,"method":"tools/call","params":{"name":"a"}}`, false, ``}, // float64 loses it
		{`{"jsonrpc":"2.0","id":-0,"method":"tools/call","params":{"name":"a"}}`, false, ``},
		// an escaped protocol key would hide from the _meta key
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocol\u0056ersion":"2026-07-28"}}}`, false, ``},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progress\u0054oken":1}}}`, false, ``},
	} {
		c, ok := parseFastCall([]byte(tc.line))
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if ok && (c.name != "a" || string(c.args) != tc.args) {
			t.Errorf("%s: name %q args %q, want a, %q", tc.line, c.name, c.args, tc.args)
		}
	}
}

// FuzzParseFastCall: whatever the scanner accepts, encoding/json reads
// the same name, arguments and id from.
func FuzzParseFastCall(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":"}\"{"}}}`)
	f.Add(`{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"_meta":{"a":1},"name":"a","arguments":[]}}`)
	f.Fuzz(func(t *testing.T, line string) {
		c, ok := parseFastCall([]byte(line))
		if !ok {
			return
		}
		var want struct {
			ID     any `json:"id"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", line, err)
		}
		id, _ := jsonrpc.MakeID(want.ID)
		if c.name != want.Params.Name || string(c.args) != string(want.Params.Arguments) || c.id != id {
			t.Fatalf("%q: got %q %q %v, encoding/json %q %q %v", line, c.name, c.args, c.id, want.Params.Name, want.Params.Arguments, id)
		}
	})
}
