package scaffold

import (
	"strings"
	"unicode"

	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// maxPrefix keeps the tool prefix short: every tool name carries it, and
// names must fit in 64 characters.
const maxPrefix = 20

// serverNames are the server name and tool prefix of a draft.
type serverNames struct {
	// name is kebab case ("redocly-museum"), prefix the same in snake case
	// ("redocly_museum"), so lint finds the namespace in tool names.
	name, prefix string
}

// genericWords say nothing about which service a title names.
var genericWords = wordSet(strings.Fields(`a an and api apis documentation docs for http https of openapi platform
reference rest restful server servers service services spec specification swagger the web`))

// connectorWords end the name part of a title: what follows says where
// the document comes from or what it covers ("Spotify Web API with fixes
// and improvements from sonallux" names Spotify, not "spotify-with").
var connectorWords = wordSet(strings.Fields(`with from by including featuring using via and or for of on to in at as
fixes improvements edition version beta alpha`))

// titleEnds are the separators after which a title stops naming the
// service: "Petstore - OpenAPI 3.0", "Payments (v68)", "Acme: Orders".
var titleEnds = []string{" - ", " – ", " — ", "(", "[", ":", "|", ",", ";"}

// namesFor derives the server name and tool prefix from the spec title:
// the first words (three at most) that name the service, before any separator or
// connector ("Swagger Petstore - OpenAPI 3.0" → petstore, "Redocly Museum
// API" → redocly-museum, "Spotify Web API with fixes" → spotify), "api"
// when no word is left.
func namesFor(title string) serverNames {
	head := title
	for _, sep := range titleEnds {
		if i := strings.Index(head, sep); i > 0 && strings.TrimSpace(head[:i]) != "" {
			head = head[:i]
		}
	}
	var words []string
	for _, f := range strings.FieldsFunc(head, notASCIIAlnum) {
		w := strings.ToLower(f)
		if connectorWords[w] && len(words) > 0 {
			break
		}
		if genericWords[w] || connectorWords[w] || versionRE.MatchString(w) || oa2mcpimpl.IsDigits(w) {
			continue
		}
		words = append(words, w)
		if len(words) == 3 {
			break
		}
	}
	// Up to three words, as many as fit ("tic-tac-toe", not "tic-tac").
	for len(words) > 1 && len(strings.Join(words, "-")) > maxPrefix {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		words = []string{"api"}
	}
	name := mapping.ClipName(strings.Join(words, "-"), maxPrefix)
	return serverNames{name: name, prefix: strings.ReplaceAll(name, "-", "_")}
}

func notASCIIAlnum(r rune) bool {
	return r >= unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r))
}

// maxToolName is the longest draft tool name: with the prefix and "_" it
// fits the 64 characters every model API accepts.
func (s serverNames) maxToolName() int {
	return 64 - len(s.prefix) - 1
}

// prefixed is a draft tool's name as the generated server lists it.
func (s serverNames) prefixed(name string) string {
	return s.prefix + "_" + name
}
