package runtime

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/expr"
	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Handles: opaque, caller-owned names for upstream objects. A creating
// tool returns one (prefix plus 160 random bits, no inner structure);
// tools taking one resolve it to the upstream id before anything else
// runs, checking type, owner and expiry on every call. A forged, expired,
// foreign or malformed handle never reaches the upstream.

// HandleStore keeps handle records. The in-memory store is the default;
// the Redis store (generated with handle_store: redis) lets replicas share
// handles. Implementations must be safe for concurrent use.
type HandleStore interface {
	// Put stores rec under key for ttl, replacing any record.
	Put(ctx context.Context, key string, rec HandleRecord, ttl time.Duration) error
	// Get returns the record under key; false when unknown or expired.
	Get(ctx context.Context, key string) (HandleRecord, bool, error)
	// Update replaces the record under key with what fn makes of it,
	// atomically: a write by anyone between the read and the write makes
	// the store run fn again on the newer record (Redis) or cannot happen
	// (memory), so no concurrent update is lost. fn may run more than once
	// and must have no other effect; its error is returned unchanged and
	// nothing is written. false (fn not run) when the key is unknown.
	Update(ctx context.Context, key string, fn UpdateFunc) (HandleRecord, bool, error)
	// Renew moves the expiry of the record under key to expires (Unix
	// milliseconds, stored in the record) and its time to live to ttl,
	// leaving the rest of the record as it is now: a renewal never writes
	// back a value it read. false when the key is unknown.
	Renew(ctx context.Context, key string, expires int64, ttl time.Duration) (bool, error)
	// Once records key for ttl and reports whether it was new; it makes
	// one-time tokens (requestState) single use across replicas.
	Once(ctx context.Context, key string, ttl time.Duration) (bool, error)
	// Delete removes the record under key, if any.
	Delete(ctx context.Context, key string) error
	Close() error
}

// UpdateFunc computes the replacement of a record and its time to live.
type UpdateFunc func(cur HandleRecord) (next HandleRecord, ttl time.Duration, err error)

// HandleRecord is what a handle names.
type HandleRecord struct {
	// Type is the handle type.
	Type string `json:"t"`
	// Owner is a digest of the creating caller's identity ("" digest for
	// anonymous callers).
	Owner string `json:"o"`
	// Value is the upstream id as JSON, or for state handles the state
	// (a JSON object).
	Value json.RawMessage `json:"v"`
	// Expires is the expiry in Unix milliseconds.
	Expires int64 `json:"e"`
}

// handleRandomBytes is the entropy of a handle: 160 bits.
const handleRandomBytes = 20

var handleEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// handleRandLen is the length of the random part of a handle.
var handleRandLen = handleEncoding.EncodedLen(handleRandomBytes)

// defaultMaxHandles bounds the in-memory store.
const defaultMaxHandles = 100_000

// memoryStore is the default HandleStore: bounded, least recently used
// records are evicted first, expired ones on access.
type memoryStore struct {
	mu    sync.Mutex
	max   int
	now   func() time.Time
	items map[string]*list.Element
	lru   *list.List // front: most recently written
}

type memEntry struct {
	key     string
	rec     HandleRecord
	expires time.Time
}

// NewMemoryHandleStore returns an in-memory store holding at most max
// records (default 100,000); now is the clock (default time.Now).
func NewMemoryHandleStore(max int, now func() time.Time) HandleStore {
	if max <= 0 {
		max = defaultMaxHandles
	}
	if now == nil {
		now = time.Now
	}
	return &memoryStore{max: max, now: now, items: map[string]*list.Element{}, lru: list.New()}
}

func (m *memoryStore) Put(_ context.Context, key string, rec HandleRecord, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.put(key, rec, ttl)
	return nil
}

func (m *memoryStore) put(key string, rec HandleRecord, ttl time.Duration) {
	exp := m.now().Add(ttl)
	if el, ok := m.items[key]; ok {
		e := el.Value.(*memEntry)
		e.rec, e.expires = rec, exp
		m.lru.MoveToFront(el)
		return
	}
	for len(m.items) >= m.max {
		back := m.lru.Back()
		m.lru.Remove(back)
		delete(m.items, back.Value.(*memEntry).key)
	}
	m.items[key] = m.lru.PushFront(&memEntry{key: key, rec: rec, expires: exp})
}

func (m *memoryStore) Get(_ context.Context, key string) (HandleRecord, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.live(key); e != nil {
		return e.rec, true, nil
	}
	return HandleRecord{}, false, nil
}

func (m *memoryStore) Update(_ context.Context, key string, fn UpdateFunc) (HandleRecord, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(key)
	if e == nil {
		return HandleRecord{}, false, nil
	}
	next, ttl, err := fn(e.rec)
	if err != nil {
		return HandleRecord{}, true, err
	}
	m.put(key, next, ttl)
	return next, true, nil
}

func (m *memoryStore) Renew(_ context.Context, key string, expires int64, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(key)
	if e == nil {
		return false, nil
	}
	e.rec.Expires, e.expires = expires, m.now().Add(ttl)
	m.lru.MoveToFront(m.items[key])
	return true, nil
}

// live returns the unexpired entry under key, dropping an expired one;
// m.mu is held.
func (m *memoryStore) live(key string) *memEntry {
	el, ok := m.items[key]
	if !ok {
		return nil
	}
	e := el.Value.(*memEntry)
	if !m.now().Before(e.expires) {
		m.lru.Remove(el)
		delete(m.items, key)
		return nil
	}
	return e
}

func (m *memoryStore) Once(_ context.Context, key string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[key]; ok && m.now().Before(el.Value.(*memEntry).expires) {
		return false, nil
	}
	m.put(key, HandleRecord{Type: "once"}, ttl)
	return true, nil
}

func (m *memoryStore) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[key]; ok {
		m.lru.Remove(el)
		delete(m.items, key)
	}
	return nil
}

func (m *memoryStore) Close() error { return nil }

// openHandleStore picks the store from a URL: "" or "memory" for memory;
// anything else (a redis:// URL, say) goes to open, the store opener of
// Options.OpenHandleStore.
func openHandleStore(url string, now func() time.Time, open func(string) (HandleStore, error)) (HandleStore, error) {
	switch {
	case url == "" || url == "memory":
		return NewMemoryHandleStore(0, now), nil
	case open != nil:
		return open(url)
	case strings.HasPrefix(url, "redis://") || strings.HasPrefix(url, "rediss://") || strings.HasPrefix(url, "redis+") || strings.HasPrefix(url, "rediss+"):
		return nil, errors.New("this server was generated without the Redis handle store; regenerate with handle_store: redis in the override file's server section, or set Options.OpenHandleStore")
	}
	return nil, fmt.Errorf("handle store %q: use memory or a Redis URL (redis://, rediss://, redis+sentinel:// or redis+cluster://)", url)
}

// handleManager creates and resolves handles for one server.
type handleManager struct {
	store HandleStore
	types map[string]*HandleType
	now   func() time.Time
	ns    string // key namespace: "oa2mcp:SERVER:"
}

func newHandleManager(spec *ServerDef, store HandleStore, now func() time.Time) *handleManager {
	h := &handleManager{store: store, types: map[string]*HandleType{}, now: now, ns: "oa2mcp:" + spec.Name + ":"}
	for i := range spec.Handles {
		t := &spec.Handles[i]
		h.types[t.Name] = t
	}
	return h
}

func (h *handleManager) key(value string) string { return h.ns + "h:" + value }

func lifetimeOf(t *HandleType) time.Duration { return time.Duration(t.LifetimeSeconds) * time.Second }

// lifetimeText is the lifetime as the description states it.
func lifetimeText(t *HandleType) string {
	d := lifetimeOf(t)
	var n int
	var unit string
	switch {
	case d%(24*time.Hour) == 0 && d >= 48*time.Hour:
		n, unit = int(d/(24*time.Hour)), "day"
	case d%time.Hour == 0:
		n, unit = int(d/time.Hour), "hour"
	default:
		n, unit = int(d/time.Minute), "minute"
	}
	if n != 1 {
		unit += "s"
	}
	if t.Fixed {
		return fmt.Sprintf("%d %s after it is created", n, unit)
	}
	return fmt.Sprintf("after %d %s without use", n, unit)
}

// create stores a new handle of type t for value, owned by owner.
func (h *handleManager) create(ctx context.Context, t *HandleType, owner string, value any) (string, error) {
	raw, err := json.Marshal(value)
	if err != nil {
		return "", err
	}
	var b [handleRandomBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	v := t.Prefix + handleEncoding.EncodeToString(b[:])
	ttl := lifetimeOf(t)
	rec := HandleRecord{Type: t.Name, Owner: owner, Value: raw, Expires: h.now().Add(ttl).UnixMilli()}
	if err := h.store.Put(ctx, h.key(v), rec, ttl); err != nil {
		return "", err
	}
	return v, nil
}

func creatorsText(t *HandleType) string {
	if len(t.Creators) == 0 {
		return "the tool that creates one"
	}
	return strings.Join(t.Creators, " or ")
}

// wellFormed reports whether v could be a handle of type t.
func wellFormed(t *HandleType, v string) bool {
	rest, ok := strings.CutPrefix(v, t.Prefix)
	if !ok || len(rest) != handleRandLen {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !('a' <= c && c <= 'z' || '2' <= c && c <= '7') {
			return false
		}
	}
	return true
}

// resolve returns the upstream id a handle argument names, or an error
// the model can act on. Sliding handles are renewed.
func (h *handleManager) resolve(ctx context.Context, in HandleInput, arg any, owner string) (any, *callError) {
	t := h.types[in.Type]
	v, _ := arg.(string)
	if !wellFormed(t, v) {
		return nil, inputFailure(fmt.Sprintf("Invalid arguments: %s is not %s handle. Handles look like %s followed by %d characters (lower-case letters and the digits 2 to 7) and come only from %s; call it to get one, then call again with the handle it returns.",
			argLabel(in.Arg, arg), textkit.WithArticle(in.Type), t.Prefix, handleRandLen, creatorsText(t)))
	}
	rec, ok, err := h.store.Get(ctx, h.key(v))
	if err != nil {
		return nil, &callError{kind: KindUnavailable, retryable: true, retryAfter: retryAfterUnknown,
			msg: "The handle store of this server is not reachable, so the handle cannot be checked. Retry in a few seconds."}
	}
	now := h.now()
	if !ok || rec.Type != t.Name || now.UnixMilli() >= rec.Expires {
		return nil, &callError{kind: KindNotFound, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("The %s handle %s is unknown or has expired (%s handles expire %s). Get a new one with %s, then call again with it.",
				in.Type, v, in.Type, lifetimeText(t), creatorsText(t))}
	}
	if rec.Owner != owner {
		return nil, &callError{kind: KindForbidden, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("The %s handle %s was not issued to you and cannot be used in this call. Use a handle returned to you, or get a new one with %s.",
				in.Type, v, creatorsText(t))}
	}
	if !t.Fixed {
		// Only the expiry moves: writing back the record read above would
		// erase a state update made since.
		ttl := lifetimeOf(t)
		if _, err := h.store.Renew(ctx, h.key(v), now.Add(ttl).UnixMilli(), ttl); err != nil {
			return nil, storeUnavailable()
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(rec.Value)))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, &callError{kind: KindNotFound, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("The %s handle %s cannot be read. Get a new one with %s.", in.Type, v, creatorsText(t))}
	}
	return out, nil
}

func argLabel(name string, v any) string {
	s, ok := v.(string)
	if !ok {
		return fmt.Sprintf("%q (%s)", name, jsonschema.DescribeValue(v))
	}
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return fmt.Sprintf("%q value %q", name, s)
}

// resolveHandles replaces every handle argument with the id it names.
// args is not modified; the returned map is a copy when any was resolved.
func (s *Server) resolveHandles(ctx context.Context, bt *boundTool, args map[string]any, owner string) (map[string]any, *callError) {
	if len(bt.spec.HandleInputs) == 0 {
		return args, nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	for _, in := range bt.spec.HandleInputs {
		v, ok := args[in.Arg]
		if !ok {
			continue
		}
		id, cerr := s.handles.resolve(ctx, in, v, owner)
		if cerr != nil {
			return nil, cerr
		}
		out[in.Arg] = id
	}
	return out, nil
}

// addHandle adds a new handle for the id at From to a successful result.
// A result without the id is returned unchanged, with a log line.
func (s *Server) addHandle(ctx context.Context, bt *boundTool, res *mcp.CallToolResult, owner string) *mcp.CallToolResult {
	ho := bt.spec.CreatesHandle
	if ho == nil || res == nil || res.IsError || res.StructuredContent == nil {
		return res
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(joinText(res)))
	dec.UseNumber()
	if dec.Decode(&m) != nil || m == nil {
		return res
	}
	id, ok := expr.LookupPath(m, expr.ParsePath(ho.From))
	if !ok || id == nil {
		s.logger.Warn("result has no id for a handle", "tool", bt.spec.Name, "from", ho.From)
		return res
	}
	t := s.handles.types[ho.Type]
	v, err := s.handles.create(ctx, t, owner, id)
	if err != nil {
		s.logger.Error("cannot store handle", "tool", bt.spec.Name, "error", err)
		m[ho.Field+"_error"] = "No handle could be issued (the handle store is not reachable); retry later."
	} else {
		m[ho.Field] = v
	}
	return structuredResult(m)
}
