package fastpath

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
)

// At end of input the SDK closes the session and drops the answers of
// requests it has read but not yet answered, so the session's owner
// waits for them first (Stdio.Unanswered). The requests in the SDK's
// hands are counted here: a call's id from the line passed to the SDK
// until the SDK writes a response with that id. A request between the
// two is invisible to the handlers' own count: the SDK may not have
// dispatched it yet.

// maxAwaited bounds the ids held; past it new requests are not counted
// (the wait then covers fewer of them, memory stays bounded).
const maxAwaited = 4096

// awaited is the set of request ids the SDK has read and not answered.
type awaited struct {
	mu  sync.Mutex
	ids map[jsonrpc.ID]struct{}
	n   atomic.Int32 // len(ids), read without the lock on every SDK write
}

func (a *awaited) add(ids []jsonrpc.ID) {
	if len(ids) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ids == nil {
		a.ids = map[jsonrpc.ID]struct{}{}
	}
	for _, id := range ids {
		if len(a.ids) < maxAwaited {
			a.ids[id] = struct{}{}
		}
	}
	a.n.Store(int32(len(a.ids)))
}

// answered removes the ids of the responses in p, one JSON-RPC message
// or batch as the SDK writes it.
func (a *awaited) answered(p []byte) {
	if a.n.Load() == 0 {
		return
	}
	var ids []jsonrpc.ID
	i := plainjson.SkipSpace(p, 0)
	if i < len(p) && p[i] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(p, &elems) != nil {
			return
		}
		for _, e := range elems {
			if id, ok := responseID(e); ok {
				ids = append(ids, id)
			}
		}
	} else if id, ok := responseID(p); ok {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range ids {
		delete(a.ids, id)
	}
	a.n.Store(int32(len(a.ids)))
}

// responseID is the id of msg when it is a response (an id and no
// method), read as the SDK reads ids.
func responseID(msg []byte) (jsonrpc.ID, bool) {
	var raw []byte
	method := false
	if !plainjson.EachMember(msg, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			raw = v
		case "method":
			method = true
		}
		return true
	}) || method || raw == nil {
		return jsonrpc.ID{}, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil && id.IsValid()
}

// calls are the ids of the requests (not notifications or responses)
// among msgs.
func calls(msgs ...jsonrpc.Message) []jsonrpc.ID {
	var ids []jsonrpc.ID
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			ids = append(ids, req.ID)
		}
	}
	return ids
}
