package mapping

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// MaxServerName keeps a server name short: the tool prefix of a draft
// and the environment prefix are spelled from it, and tool names must
// fit in 64 characters.
const MaxServerName = 20

// serverGenericWords say nothing about which service a title names.
var serverGenericWords = oa2mcpimpl.WordSet(`a an and api apis documentation docs for http https of openapi platform
reference rest restful server servers service services spec specification swagger the web`)

// serverConnectorWords end the name part of a title: what follows says
// where the document comes from or what it covers ("Spotify Web API with
// fixes and improvements from sonallux" names Spotify, not
// "spotify-with").
var serverConnectorWords = oa2mcpimpl.WordSet(`with from by including featuring using via and or for of on to in at as
fixes improvements edition version beta alpha`)

// titleEnds are the separators after which a title stops naming the
// service: "Petstore - OpenAPI 3.0", "Payments (v68)", "Acme: Orders".
var titleEnds = []string{" - ", " – ", " — ", "(", "[", ":", "|", ",", ";"}

// versionWord matches a version or date as one word of a name or path
// segment: v2, v1beta1, v2.1, v1.2beta1, 2024-01-31.
var versionWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(v\d+(\.\d+)*([a-z]+\d*)?(\.\d+)*|\d{4}-\d{2}-\d{2})$`)
})

// IsVersionWord reports whether w (lower case) is a version or a date,
// which names no resource or service.
func IsVersionWord(w string) bool { return versionWord().MatchString(w) }

// ServerName is the one rule for a server's default name, in kebab case,
// from the spec title: the first words (three at most) that name the
// service, before any separator or connector ("Swagger Petstore -
// OpenAPI 3.0" → petstore, "Redocly Museum API" → redocly-museum,
// "Spotify Web API with fixes" → spotify), as many as fit in
// MaxServerName bytes; "api" when no word is left. The default mapping
// and the drafts of init both name their server by it.
func ServerName(title string) string {
	head := title
	for _, sep := range titleEnds {
		if i := strings.Index(head, sep); i > 0 && strings.TrimSpace(head[:i]) != "" {
			head = head[:i]
		}
	}
	var words []string
	for _, f := range strings.FieldsFunc(head, notASCIIAlnum) {
		w := strings.ToLower(f)
		if serverConnectorWords[w] && len(words) > 0 {
			break
		}
		if serverGenericWords[w] || serverConnectorWords[w] || IsVersionWord(w) || oa2mcpimpl.IsDigits(w) {
			continue
		}
		words = append(words, w)
		if len(words) == 3 {
			break
		}
	}
	// Up to three words, as many as fit ("tic-tac-toe", not "tic-tac").
	for len(words) > 1 && len(strings.Join(words, "-")) > MaxServerName {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return "api"
	}
	return ClipName(strings.Join(words, "-"), MaxServerName)
}

func notASCIIAlnum(r rune) bool {
	return r >= unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r))
}
