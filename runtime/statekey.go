package runtime

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Replicas must sign requestState values with one key: an input_required
// flow answered on another replica, or after a restart, is checked with
// the key of the process that answers. With a shared handle store the
// server says so loudly when that cannot hold: a random key per process,
// or a configured key whose fingerprint differs from the one another
// replica published in the store.

// stateKeyCheckTTL is how long a published key fingerprint stays: longer
// than any rolling restart, short enough that an abandoned key is
// forgotten.
const stateKeyCheckTTL = 7 * 24 * time.Hour

// stateKeyFingerprint names a key without revealing it.
func stateKeyFingerprint(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("oa2mcp-state-key-fingerprint"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// sharedStore reports whether the handle store is shared with other
// processes (anything but the memory store).
func sharedStore(store HandleStore) bool {
	_, mem := store.(*memoryStore)
	return !mem
}

// checkStateKey warns when replicas sharing the store would disagree on
// the request-state key. It never stops the server: a key rotation
// passes through a moment of disagreement on purpose.
func (s *Server) checkStateKey(key []byte, random bool, prefix string) {
	if !sharedStore(s.handles.store) || !needsState(s.spec) {
		return
	}
	if random {
		s.logger.Warn("no request-state key is configured, so this replica signs requestState values with a random key of its own: a user's answer that reaches another replica, or this one after a restart, is refused; set $" + prefix + "_STATE_KEY to one value (at least 32 characters) on every replica")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	fp := stateKeyFingerprint(key)
	k := s.handles.ns + "state-key"
	rec, ok, err := s.handles.store.Get(ctx, k)
	if err != nil {
		s.logger.Warn("cannot compare the request-state key with the other replicas' (handle store not reachable)", "error", err)
		return
	}
	var theirs string
	if ok && json.Unmarshal(rec.Value, &theirs) == nil && theirs != fp {
		s.logger.Warn("another replica of this server published a different request-state key: answers to input_required requests fail when they reach a replica with the other key; set the same $"+prefix+"_STATE_KEY on every replica (expected only while a key rotation rolls out)",
			"this_fingerprint", fp, "other_fingerprint", theirs)
	}
	raw, _ := json.Marshal(fp)
	exp := s.now().Add(stateKeyCheckTTL).UnixMilli()
	if err := s.handles.store.Put(ctx, k, HandleRecord{Type: "state-key", Value: raw, Expires: exp}, stateKeyCheckTTL); err != nil {
		s.logger.Warn("cannot publish the request-state key fingerprint", "error", err)
	}
}
