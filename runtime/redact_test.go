package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Names the rules must hide, in the spellings specs use, and names they
// must not.
var (
	secretNames   = []string{"password", "passphrase", "pin", "cvv", "otp", "api_key", "apiKey", "X-Api-Key", "access_token", "clientSecret", "session_id", "Authorization", "card_pin"}
	personalNames = []string{"email", "e_mail", "phone", "mobileNumber", "iban", "date_of_birth", "birthDate", "home_address", "lastName", "zip_code"}
	benignNames   = []string{"author", "keyword", "petId", "status", "quantity", "monkey", "passenger_count", "title", "limit"}
)

// TestSecretNameRule pins the one name rule the generator shares.
func TestSecretNameRule(t *testing.T) {
	for _, n := range secretNames {
		if !textkit.IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = false", n)
		}
	}
	for _, n := range append(benignNames, personalNames...) {
		if textkit.IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = true", n)
		}
	}
}

// TestLogRedactionRandomised: seeded random arguments (names hidden by
// the rules, by a declaration or a glob, and harmless ones; values that
// are e-mail addresses, phone numbers, card numbers, handles or plain
// words) never leave a hidden value in the log line, and harmless ones
// (plain words, long numbers whose card checksum fails) stay readable.
func TestLogRedactionRandomised(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 3))
	ss := newSensitiveSet([]HandleType{{Name: "ticket", Prefix: "tkt_"}}, []string{"customer_ref"}, []string{"*_note"})
	for i := 0; i < 400; i++ {
		args := map[string]any{}
		var hidden, shown []string
		for j := 0; j < 1+r.IntN(6); j++ {
			word := fmt.Sprintf("v%dx%d", i, j)
			switch r.IntN(7) {
			case 0:
				n := secretNames[r.IntN(len(secretNames))]
				args[n] = "s3cr3t-" + word
				hidden = append(hidden, "s3cr3t-"+word)
			case 1:
				n := personalNames[r.IntN(len(personalNames))]
				args[n] = "p-" + word
				hidden = append(hidden, "p-"+word)
			case 2:
				n := []string{"customer_ref", "delivery_note"}[r.IntN(2)]
				args[n] = "d-" + word
				hidden = append(hidden, "d-"+word)
			case 3:
				v := []string{word + "@private.example", fmt.Sprintf("+49-170-%07d", r.IntN(1e7)), randomCardNumber(r, true)}[r.IntN(3)]
				args["contact"+word] = v
				hidden = append(hidden, v)
			case 4:
				args["ticket"+word] = "tkt_" + word + "RANDOMPART"
				hidden = append(hidden, word+"RANDOMPART")
			case 5:
				v := randomCardNumber(r, false) // an order number, say: checksum fails
				args["reference"+word] = v
				shown = append(shown, v)
			default:
				n := benignNames[r.IntN(len(benignNames))] + word
				args[n] = "plain-" + word
				shown = append(shown, "plain-"+word)
			}
		}
		line := summarizeArgs(args, ss, &credentialSet{})
		for _, h := range hidden {
			if strings.Contains(line, h) {
				t.Fatalf("seed %d: the log line shows %q: %s\n  minimal input: %v", seed, h, line, minimalLeak(args, h, ss))
			}
		}
		for _, s := range shown {
			if !strings.Contains(line, s) {
				t.Fatalf("seed %d: the log line hides the harmless %q: %s", seed, s, line)
			}
		}
	}
}

// randomCardNumber draws 13 to 19 digits, grouped by spaces, hyphens or
// not at all, whose last digit is the Luhn check digit of the others
// when valid is true and any other digit otherwise. The check digit is
// computed here on its own, not by the rule under test.
func randomCardNumber(r *rand.Rand, valid bool) string {
	n := 13 + r.IntN(7)
	digits := make([]byte, n)
	sum := 0
	for i := 0; i < n-1; i++ {
		d := byte(r.IntN(10))
		digits[i] = d
		// Counted from the check digit, every second digit is doubled.
		if (n-1-i)%2 == 1 {
			dd := int(d) * 2
			sum += dd/10 + dd%10
		} else {
			sum += int(d)
		}
	}
	check := (10 - sum%10) % 10
	if !valid {
		check = (check + 1 + r.IntN(9)) % 10
	}
	digits[n-1] = byte(check)
	sep := []string{"", " ", "-"}[r.IntN(3)]
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && i%4 == 0 {
			b.WriteString(sep)
		}
		b.WriteByte('0' + d)
	}
	return b.String()
}

// TestCardNumberShape pins the shape rule on known numbers.
func TestCardNumberShape(t *testing.T) {
	for _, v := range []string{"4111111111111111", "4111 1111 1111 1111", "5500-0000-0000-0004", "378282246310005"} {
		if !looksLikeCardNumber(v) {
			t.Errorf("looksLikeCardNumber(%q) = false", v)
		}
	}
	for _, v := range []string{"4111111111111112", "411111111111", "4111  1111 1111 1111", "4111-1111-1111-1111-", "12345678901234567890", "ORD-4111111111111111"} {
		if looksLikeCardNumber(v) {
			t.Errorf("looksLikeCardNumber(%q) = true", v)
		}
	}
}

// minimalLeak keeps only the argument whose value leaked.
func minimalLeak(args map[string]any, leak string, ss *sensitiveSet) map[string]any {
	for k, v := range args {
		if s, _ := v.(string); strings.Contains(s, leak) {
			return map[string]any{k: v}
		}
	}
	return args
}

// TestUpstreamEchoOfSecretsRedacted: an upstream that echoes the request
// in its error puts neither the caller's secret (a writeOnly/password or
// declared input) nor the API credential into the text the model reads.
func TestUpstreamEchoOfSecretsRedacted(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		msg, _ := json.Marshal(map[string]string{"message": "rejected " + string(body) + " key " + r.Header.Get("X-Api-Key")})
		w.Write(msg)
	}))
	t.Cleanup(up.Close)
	def := &ServerDef{Name: "echo",
		Security: []SecurityScheme{{Name: "k", Kind: "apiKey", In: "header", ParamName: "X-Api-Key", EnvVar: "ECHO_KEY"}},
		Tools: []*Tool{{Name: "login", InputSchema: `{"type":"object","properties":{"user":{"type":"string"},"secret_word":{"type":"string"},"pin":{"type":"string"}}}`,
			Sensitive: []string{"secret_word"},
			Op: &Operation{Method: "POST", Path: "/login", Security: [][]string{{"k"}}, Body: &Body{MediaType: "application/json",
				Fields: []BodyField{{Name: "user", Arg: "user"}, {Name: "word", Arg: "secret_word"}, {Name: "pin", Arg: "pin"}}}}}}}
	env := func(k string) string {
		if k == "ECHO_KEY" {
			return "api-credential-9876"
		}
		return ""
	}
	srv, err := NewServer(def, Options{BaseURL: up.URL, Getenv: env, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := srv.CallTool(context.Background(), "login", map[string]any{"user": "carol", "secret_word": "open-sesame-42", "pin": "4711"})
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res)
	if !strings.Contains(text, "carol") {
		t.Fatalf("the upstream's message is not quoted: %q", text)
	}
	for _, leak := range []string{"open-sesame-42", "4711", "api-credential-9876"} {
		if strings.Contains(text, leak) {
			t.Errorf("the error text shows %q: %s", leak, text)
		}
	}
}
