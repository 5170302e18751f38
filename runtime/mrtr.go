package runtime

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// input_required (MRTR, SEP-2322): a tool asks the user for a missing
// input or a confirmation by returning inputRequests (one elicitation
// form) and a requestState; the client asks the user and retries the same
// call with inputResponses and the state echoed. The state is
// attacker-controlled, so it is HMAC-SHA256 signed with the server key and
// bound to the tool, a digest of the arguments, the caller and a short
// expiry, and it is accepted once. Clients of 2025-11-25 on a stateful
// connection (stdio) are served by the SDK's bridge, which turns the
// result into a classic elicitation request and calls the tool again.

// inputKey is the one input request a tool call makes.
const inputKey = "oa2mcp_input"

// maxStateLen bounds a requestState, answers of earlier rounds included.
const maxStateLen = 16 << 10

// stateTTL bounds how long the user may take to answer.
const stateTTL = 5 * time.Minute

// stateSigner signs and checks requestState values.
type stateSigner struct {
	key []byte
	now func() time.Time
	// lastOwner is the last owner digest computed: the caller of a stdio
	// server, and of most calls in a row over HTTP, is the same one, and
	// an HMAC per call is the cost of a dozen JSON fields.
	lastOwner atomic.Pointer[ownerDigest]
}

// ownerDigest is one subject's owner digest.
type ownerDigest struct{ subject, owner string }

// requestStateV1 is the signed content of a requestState.
type requestStateV1 struct {
	Tool   string `json:"t"`
	Args   string `json:"a"` // digest of the call's arguments
	Caller string `json:"c"` // owner digest of the caller
	Exp    int64  `json:"e"` // Unix seconds
	Nonce  string `json:"n"`
	// Answers are the inputs the user gave in earlier rounds of this
	// call (the confirmation comes after them).
	Answers map[string]any `json:"v,omitempty"`
}

var errBadState = errors.New("bad request state")

func (s *stateSigner) mac(payload string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("oa2mcp-request-state-v1\x00"))
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// owner identifies a caller in stored records without storing who they
// are: an HMAC of the subject under the server's key, so that whoever
// reads the store cannot confirm a guessed subject (an unkeyed hash of a
// user id or e-mail address is looked up in seconds). Replicas sharing a
// store need the same key, as for requestState ($PREFIX_STATE_KEY).
func (s *stateSigner) owner(subject string) string {
	if last := s.lastOwner.Load(); last != nil && last.subject == subject {
		return last.owner
	}
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("oa2mcp-owner\x00"))
	m.Write([]byte(subject))
	d := &ownerDigest{subject: subject, owner: hex.EncodeToString(m.Sum(nil)[:16])}
	s.lastOwner.Store(d)
	return d.owner
}

func (s *stateSigner) sign(st requestStateV1) string {
	b, _ := json.Marshal(st)
	payload := base64.RawURLEncoding.EncodeToString(b)
	return "v1." + payload + "." + s.mac(payload)
}

// verify checks the signature and decodes the state; expiry and binding
// are the caller's to check.
func (s *stateSigner) verify(tok string) (requestStateV1, error) {
	var st requestStateV1
	if len(tok) > maxStateLen {
		return st, errBadState
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] != "v1" {
		return st, errBadState
	}
	if !hmac.Equal([]byte(parts[2]), []byte(s.mac(parts[1]))) {
		return st, errBadState
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(b, &st) != nil {
		return st, errBadState
	}
	return st, nil
}

// argsDigest is a digest of the arguments as the client sent them
// (encoding/json sorts keys, so equal arguments give equal digests).
func argsDigest(args map[string]any) string {
	b, _ := json.Marshal(args)
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}

// interaction is what a tool call needs from the user.
type interaction struct {
	missing []Ask
	confirm bool
}

func (s *Server) needsInput(bt *boundTool, args map[string]any) interaction {
	var in interaction
	for _, a := range bt.spec.Asks {
		if v, ok := args[a.Arg]; !ok || v == nil {
			in.missing = append(in.missing, a)
		}
	}
	in.confirm = bt.confirm != nil
	return in
}

// round is what one form asks. A client that retries by itself
// (2026-07-28) is asked in rounds: the missing inputs first, then the
// confirmation, whose question then shows the inputs the user gave. A
// client served by the SDK's bridge (an older client on a stateful
// connection) is asked once, so it gets everything in one form.
func (in interaction) round(multiRound bool) interaction {
	if multiRound && len(in.missing) > 0 {
		return interaction{missing: in.missing}
	}
	return in
}

// inputKeyOf is the key of the tool's one input request.
func inputKeyOf(bt *boundTool) string {
	if k := bt.spec.InputKey; k != "" {
		return k
	}
	return inputKey
}

// interact runs the input_required protocol for one call. It returns a
// result to send (input_required or an error) or nil to go on, having
// filled the answered inputs into args. A requestState that fails its
// checks is a protocol error (-32602): the client, not the model, sends
// it back.
func (s *Server) interact(ctx context.Context, bt *boundTool, req *mcp.CallToolRequest, raw, args map[string]any, owner string) (*mcp.CallToolResult, *callError) {
	need := s.needsInput(bt, args)
	if len(need.missing) == 0 && !need.confirm {
		return nil, nil
	}
	var params *mcp.CallToolParamsRaw
	if req != nil {
		params = req.Params
	}
	multi := multiRound(req)
	// The digest of the arguments as sent, before any answer fills them.
	digest := argsDigest(raw)
	if params == nil || params.RequestState == "" {
		return s.firstRound(ctx, bt, req, params, digest, args, need, owner)
	}
	st, cerr := s.checkState(bt, params.RequestState, digest, owner)
	if cerr != nil {
		return nil, cerr
	}
	// The answers of earlier rounds travel in the signed state.
	for k, v := range st.Answers {
		args[k] = v
	}
	need = s.needsInput(bt, args)
	asked := need.round(multi)
	resp, ok := params.InputResponses[inputKeyOf(bt)]
	if !ok || resp == nil {
		// Answers missing: ask again rather than fail.
		if !clientCanElicit(req) {
			return nil, noElicitation(bt, need)
		}
		return s.inputRequired(bt, digest, args, asked, owner, "", st.Answers), nil
	}
	answers, res, cerr := s.takeAnswer(ctx, bt, req, digest, args, asked, owner, resp, &st)
	if res != nil || cerr != nil {
		return res, cerr
	}
	all := mergeAnswers(st.Answers, answers)
	if need.confirm && !asked.confirm {
		// The inputs are in; the confirmation comes next, in its own
		// round, carrying the answers so far, to a client that declared
		// it can show a form on this request too.
		if !clientCanElicit(req) {
			return nil, noElicitation(bt, interaction{confirm: true})
		}
		return s.inputRequired(bt, digest, args, interaction{confirm: true}, owner, "", all), nil
	}
	return nil, nil
}

// firstRound answers a call that carries no requestState: it asks the
// user, or, for a tool without a confirmation whose answers came anyway
// (a client that kept them from an earlier form), takes them. An answer
// to an ask is an input value the model could have sent itself, so it
// needs no state; a confirmation must answer a question this server
// asked, once, so it always does.
func (s *Server) firstRound(ctx context.Context, bt *boundTool, req *mcp.CallToolRequest, params *mcp.CallToolParamsRaw, digest string, args map[string]any, need interaction, owner string) (*mcp.CallToolResult, *callError) {
	if params != nil && !need.confirm {
		if resp, ok := params.InputResponses[inputKeyOf(bt)]; ok && resp != nil {
			_, res, cerr := s.takeAnswer(ctx, bt, req, digest, args, need, owner, resp, nil)
			return res, cerr
		}
	}
	if !clientCanElicit(req) {
		return nil, noElicitation(bt, need)
	}
	return s.inputRequired(bt, digest, args, need.round(multiRound(req)), owner, "", nil), nil
}

// takeAnswer checks the user's answer to the form that asked, and on
// acceptance fills the answers into args and consumes the state (st is
// nil for an answer without state). It returns the answers, or a result
// or an error to send instead.
func (s *Server) takeAnswer(ctx context.Context, bt *boundTool, req *mcp.CallToolRequest, digest string, args map[string]any, asked interaction, owner string, resp mcp.InputResponse, st *requestStateV1) (map[string]any, *mcp.CallToolResult, *callError) {
	var earlier map[string]any
	if st != nil {
		earlier = st.Answers
	}
	er, ok := resp.(*mcp.ElicitResult)
	if !ok {
		return nil, nil, stateFailure(fmt.Sprintf("inputResponses[%q] is not an elicitation result (action and content). Call the tool again without requestState and inputResponses to ask the user again.", inputKeyOf(bt)))
	}
	switch er.Action {
	case "accept":
	case "decline", "cancel":
		if st != nil {
			if cerr := s.consumeState(ctx, *st); cerr != nil {
				return nil, nil, cerr
			}
		}
		if er.Action == "decline" {
			return nil, nil, &callError{kind: KindDeclined, retryAfter: retryAfterUnknown,
				msg: fmt.Sprintf("The user declined%s, so %s did nothing. Do not call it again unless the user asks to.", whatAsked(asked), bt.spec.Name)}
		}
		return nil, nil, &callError{kind: KindDeclined, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("The user dismissed the form without answering%s, so %s did nothing. Ask the user whether to continue before calling it again.", whatAsked(asked), bt.spec.Name)}
	default:
		return nil, nil, stateFailure(fmt.Sprintf("The answer has an unknown action %q (want accept, decline or cancel). Call the tool again without requestState to ask the user again.", er.Action))
	}
	answers, problem := checkAnswers(bt, asked, er.Content)
	if problem != "" {
		// The state stays unused: the user corrects the answer rather
		// than starting over.
		if !clientCanElicit(req) {
			return nil, nil, inputFailure(problem + " Call the tool again with the same requestState and a corrected answer, or without requestState to ask the user again.")
		}
		return nil, s.inputRequired(bt, digest, args, asked, owner, problem, earlier), nil
	}
	if st != nil {
		if cerr := s.consumeState(ctx, *st); cerr != nil {
			return nil, nil, cerr
		}
	}
	for k, v := range answers {
		args[k] = v
	}
	return answers, nil, nil
}

// checkState verifies a requestState and its binding to this call.
func (s *Server) checkState(bt *boundTool, tok, digest, owner string) (requestStateV1, *callError) {
	st, err := s.signer.verify(tok)
	if err != nil {
		return st, stateFailure("The requestState sent with this call is not one this server issued (it is altered, truncated or from another server), so the user's answer cannot be trusted. Call the tool again without requestState and inputResponses to ask the user again.")
	}
	if st.Tool != bt.spec.Name || st.Caller != owner || st.Args != digest {
		return st, stateFailure("The requestState sent with this call belongs to a different call (another tool, other arguments or another caller). Call the tool again without requestState to ask the user again.")
	}
	if s.now().Unix() > st.Exp {
		return st, stateFailure(fmt.Sprintf("The user's answer came after the request expired (answers are accepted for %s). Call the tool again without requestState to ask again.", stateTTL))
	}
	return st, nil
}

// stateFailure is a requestState or inputResponses the server cannot
// accept: a protocol error (-32602 Invalid params), since the client, not
// the model, sends these fields back.
func stateFailure(msg string) *callError {
	e := inputFailure(msg)
	e.protocol = true
	return e
}

// mergeAnswers is the answers of earlier rounds plus this round's.
func mergeAnswers(earlier, now map[string]any) map[string]any {
	if len(earlier) == 0 && len(now) == 0 {
		return nil
	}
	all := make(map[string]any, len(earlier)+len(now))
	for k, v := range earlier {
		all[k] = v
	}
	for k, v := range now {
		all[k] = v
	}
	return all
}

// multiRound reports whether the client retries input_required calls
// itself (2026-07-28), so that it can be asked in several rounds. The
// SDK's bridge for older clients on a stateful connection re-invokes a
// tool once only.
func multiRound(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return true
	}
	ip := req.Session.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= "2026-07-28"
}

// consumeState marks a requestState used, once for all replicas sharing
// the handle store; a second use is an error.
func (s *Server) consumeState(ctx context.Context, st requestStateV1) *callError {
	fresh, err := s.handles.store.Once(ctx, s.handles.ns+"rs:"+st.Nonce, stateTTL+time.Minute)
	if err != nil {
		return &callError{kind: KindUnavailable, retryable: true, retryAfter: retryAfterUnknown, msg: "This server cannot check the answer right now. Retry in a few seconds."}
	}
	if !fresh {
		return stateFailure("This requestState was already used: each answer of the user counts once. Call the tool again without requestState to ask the user again.")
	}
	return nil
}

// checkAnswers validates an accepted form's content against the asked
// inputs' schemas: the answers by input, or what is wrong with them.
func checkAnswers(bt *boundTool, need interaction, content map[string]any) (map[string]any, string) {
	answers := map[string]any{}
	for _, a := range need.missing {
		v, ok := content[a.Arg]
		if !ok || v == nil {
			return nil, fmt.Sprintf("The user accepted the form but gave no %s.", a.Arg)
		}
		v = normalizeJSON(v)
		if n := bt.askSchemas[a.Arg]; n != nil {
			vd := &jsonschema.Validator{}
			vd.Check(n, v, a.Arg, 0)
			if vd.Failed() {
				return nil, "The user's answer is not valid: " + ensurePeriod(jsonschema.Message(vd))
			}
		}
		answers[a.Arg] = v
	}
	return answers, ""
}

// normalizeJSON turns float64 numbers (from the SDK's decoding) into
// json.Number, as the rest of the runtime expects.
func normalizeJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return v
	}
	return out
}

func whatAsked(need interaction) string {
	var names []string
	for _, a := range need.missing {
		names = append(names, a.Arg)
	}
	switch {
	case len(names) > 0 && need.confirm:
		return " to confirm and give " + strings.Join(names, ", ")
	case len(names) > 0:
		return " to give " + strings.Join(names, ", ")
	}
	return " to confirm"
}

// clientCanElicit reports whether the calling client declared
// elicitation (per request in 2026-07-28, at initialize before).
func clientCanElicit(req *mcp.CallToolRequest) bool {
	if req == nil {
		return false
	}
	caps := req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil
}

// noElicitation is the answer to a client that cannot ask its user:
// missing inputs are named so the model can ask in the conversation; a
// confirmation cannot be given by the model, so the tool refuses.
func noElicitation(bt *boundTool, need interaction) *callError {
	if need.confirm {
		return &callError{kind: KindNeedsUser, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s needs the user's own confirmation before it runs, and this client cannot be shown a confirmation form on this connection (it declared no elicitation capability, or it speaks a protocol revision before 2026-07-28 over stateless HTTP, where the server cannot send it one). Tell the user to use an MCP client that supports elicitation for this action, over stdio or with protocol revision 2026-07-28.", bt.spec.Name)}
	}
	var parts []string
	for _, a := range need.missing {
		parts = append(parts, fmt.Sprintf("%s (%s)", a.Arg, strings.TrimSuffix(a.Message, "?")))
	}
	return inputFailure(fmt.Sprintf("Missing input that must come from the user: %s. Ask the user in the conversation, never guess, and call again with it set.", strings.Join(parts, "; ")))
}

// inputRequired builds the input_required result: one form with the
// missing inputs (and the confirmation question), and a fresh state that
// carries the answers of earlier rounds; problem, when set, says first
// what was wrong with the last answer.
func (s *Server) inputRequired(bt *boundTool, digest string, args map[string]any, need interaction, owner, problem string, answers map[string]any) *mcp.CallToolResult {
	props := map[string]any{}
	var required []string
	var msg []string
	if problem != "" {
		msg = append(msg, problem+" Please answer again.")
	}
	if need.confirm {
		env := &evalEnv{input: args, config: s.spec.Config, getenv: s.getenv}
		if v, ok := bt.confirm.eval(env); ok {
			msg = append(msg, textkit.ScalarText(v))
		} else {
			msg = append(msg, "Confirm running "+bt.spec.Name+"?")
		}
	}
	for _, a := range need.missing {
		props[a.Arg] = json.RawMessage(a.Schema)
		required = append(required, a.Arg)
		msg = append(msg, a.Message)
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	st := s.newRequestState(bt, digest, owner)
	st.Answers = answers
	tok := s.signer.sign(st)
	if len(tok) > maxStateLen {
		return inputFailure(fmt.Sprintf("The user's answers are too long to carry to the next question (more than %s). Call the tool again with shorter values.", textkit.ByteSize(maxStateLen))).result()
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{inputKeyOf(bt): &mcp.ElicitParams{
			Mode: "form", Message: strings.Join(msg, " "), RequestedSchema: schema,
		}},
		RequestState: tok,
	}
}

// newRequestState binds a fresh requestState to the tool, the arguments
// as sent and the caller, for stateTTL.
func (s *Server) newRequestState(bt *boundTool, digest, owner string) requestStateV1 {
	var nonce [16]byte
	rand.Read(nonce[:])
	return requestStateV1{Tool: bt.spec.Name, Args: digest, Caller: owner,
		Exp: s.now().Add(stateTTL).Unix(), Nonce: base64.RawURLEncoding.EncodeToString(nonce[:])}
}

// newStateKey decodes a configured key (hex, base64 or text of at least
// 32 bytes) or makes a random one for this process.
func newStateKey(configured string) ([]byte, bool, error) {
	if configured == "" {
		k := make([]byte, 32)
		_, err := rand.Read(k)
		return k, true, err
	}
	if len(configured) < 32 {
		return nil, false, fmt.Errorf("the request-state key must have at least 32 characters (e.g. 64 hex digits from `openssl rand -hex 32`)")
	}
	return []byte(configured), false, nil
}
