package runtime

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// progressStreams picks the SDK's Streamable HTTP handler per request:
// plain JSON answers (cheaper, and what most calls need), or an event
// stream for a request that carries a progress token, since a progress
// notification can only travel on a stream opened for its request. Only
// a client that accepts text/event-stream gets one.
type progressStreams struct {
	json, stream http.Handler
}

func (p progressStreams) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.Contains(r.Header.Get("Accept"), "text/event-stream") && asksProgress(r) {
		p.stream.ServeHTTP(w, r)
		return
	}
	p.json.ServeHTTP(w, r)
}

// asksProgress reports whether the request body (already read into
// memory and bounded by bodyGuard) is one message whose params._meta has
// a progressToken. The body is left for the next reader.
func asksProgress(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return false
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil || !bytes.Contains(body, []byte(`"progressToken"`)) {
		return false
	}
	var msg struct {
		Params struct {
			Meta struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Params.Meta.ProgressToken != nil
}
