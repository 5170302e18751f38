package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// State handles: a handle type with State names a JSON object kept in the
// handle store (e.g. a basket) instead of an upstream id. Pure state tools
// (no upstream call) create and grow it (UpdatesHandle) or return it; any
// tool reads it through ${handle.INPUT.PATH} and may consume it. Owner,
// expiry and the opaque value work as for every handle.

// maxStateBytes bounds the encoded state of one handle.
const maxStateBytes = 64 << 10

// compiledUpdate is a compiled handleUpdate.
type compiledUpdate struct {
	spec   *HandleUpdate
	append []compiledBinding
	set    []compiledBinding
}

func compileUpdate(u *HandleUpdate) (*compiledUpdate, error) {
	if u == nil {
		return nil, nil
	}
	a, err := compileBindings(u.Append)
	if err != nil {
		return nil, fmt.Errorf("updates_handle append: %w", err)
	}
	st, err := compileBindings(u.Set)
	if err != nil {
		return nil, fmt.Errorf("updates_handle set: %w", err)
	}
	return &compiledUpdate{spec: u, append: a, set: st}, nil
}

// stateInput is the first input of ts taking a state handle; "" if none.
func (h *handleManager) stateInput(ts *Tool) string {
	for _, in := range ts.HandleInputs {
		if t := h.types[in.Type]; t != nil && t.State {
			return in.Arg
		}
	}
	return ""
}

func storeUnavailable() *callError {
	return &callError{kind: KindUnavailable, retryable: true, retryAfter: retryAfterUnknown,
		msg: "The handle store of this server is not reachable. Retry in a few seconds."}
}

// updateState applies fn to the state of handle v and stores it,
// keeping the record's expiry, as one atomic update of the store: any
// number of concurrent updates, on any replica, each keep their change.
func (h *handleManager) updateState(ctx context.Context, t *HandleType, v, owner string, fn func(map[string]any)) (map[string]any, *callError) {
	var state map[string]any
	_, found, err := h.store.Update(ctx, h.key(v), func(rec HandleRecord) (HandleRecord, time.Duration, error) {
		now := h.now()
		if rec.Type != t.Name || rec.Owner != owner || now.UnixMilli() >= rec.Expires {
			return rec, 0, stateGone(t, v)
		}
		state = decodeState(rec.Value)
		fn(state)
		raw, err := json.Marshal(state)
		if err != nil {
			return rec, 0, inputFailure("Invalid arguments: the values cannot be stored. Call again with plain values.")
		}
		if len(raw) > maxStateBytes {
			return rec, 0, &callError{kind: KindTooLarge, retryAfter: retryAfterUnknown,
				msg: fmt.Sprintf("The %s handle %s would hold more than %s; it was not changed. Finish with what it holds, or start a new one.", t.Name, v, textkit.ByteSize(maxStateBytes))}
		}
		rec.Value = raw
		return rec, time.UnixMilli(rec.Expires).Sub(now), nil
	})
	var cerr *callError
	switch {
	case errors.As(err, &cerr):
		return nil, cerr
	case err != nil:
		return nil, storeUnavailable()
	case !found:
		return nil, stateGone(t, v)
	}
	return state, nil
}

// stateGone is the error for a state handle that resolve checked moments
// ago and that expired or was consumed since.
func stateGone(t *HandleType, v string) *callError {
	return &callError{kind: KindNotFound, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("The %s handle %s is unknown or has expired. Get a new one with %s, then call again with it.", t.Name, v, creatorsText(t))}
}

// decodeState decodes a stored state; an unreadable one starts empty.
func decodeState(raw json.RawMessage) map[string]any {
	state := map[string]any{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&state) != nil || state == nil {
		state = map[string]any{}
	}
	return state
}

// runState runs a pure state tool: it creates or updates the state handle
// (UpdatesHandle) or returns the state of its state handle input.
func (s *Server) runState(ctx context.Context, bt *boundTool, args, callArgs map[string]any, owner string) (*mcp.CallToolResult, *callError) {
	u := bt.update
	if u == nil {
		arg := s.handles.stateInput(bt.spec)
		return structuredResult(map[string]any{arg: args[arg], "state": callArgs[arg]}), nil
	}
	t := s.handles.types[u.spec.Type]
	env := &evalEnv{ctx: ctx, input: callArgs, config: s.spec.Config, getenv: s.getenv}
	adds, partialAdd := evalArgs(u.append, env)
	sets, partialSet := evalArgs(u.set, env)
	if msg := cmp.Or(partialAdd, partialSet); msg != "" {
		return nil, inputFailure(msg)
	}
	v, _ := args[u.spec.Arg].(string)
	if _, present := args[u.spec.Arg]; !present {
		var err error
		if v, err = s.handles.create(ctx, t, owner, map[string]any{}); err != nil {
			s.logger.Error("cannot store handle", "tool", bt.spec.Name, "error", err)
			return nil, storeUnavailable()
		}
	}
	state, cerr := s.handles.updateState(ctx, t, v, owner, func(st map[string]any) {
		for _, b := range u.append {
			if x, ok := adds[b.arg]; ok {
				arr, _ := st[b.arg].([]any)
				st[b.arg] = append(arr, x)
			}
		}
		for _, b := range u.set {
			if x, ok := sets[b.arg]; ok {
				st[b.arg] = x
			}
		}
	})
	if cerr != nil {
		return nil, cerr
	}
	return structuredResult(map[string]any{u.spec.Arg: v, "state": state}), nil
}

// consumeHandle deletes the handle a successful call consumed.
func (s *Server) consumeHandle(ctx context.Context, bt *boundTool, args map[string]any, res *mcp.CallToolResult) {
	name := bt.spec.ConsumesHandle
	if name == "" || res == nil || res.IsError {
		return
	}
	v, _ := args[name].(string)
	if v == "" {
		return
	}
	if err := s.handles.store.Delete(ctx, s.handles.key(v)); err != nil {
		s.logger.Error("cannot delete consumed handle", "tool", bt.spec.Name, "error", err)
	}
}
