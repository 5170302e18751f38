package scaffold

import (
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/mapping"
)

// serverNames are the server name and tool prefix of a draft.
type serverNames struct {
	// name is kebab case ("redocly-museum"), prefix the same in snake case
	// ("redocly_museum"), so lint finds the namespace in tool names.
	name, prefix string
}

// namesFor is the draft's server name (the default mapping's, by
// mapping.ServerName) and the tool prefix spelled from it.
func namesFor(title string) serverNames {
	name := mapping.ServerName(title)
	return serverNames{name: name, prefix: strings.ReplaceAll(name, "-", "_")}
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
