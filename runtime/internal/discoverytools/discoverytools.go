// Package discoverytools holds the three tools discovery mode adds to a
// server, as tools/list shows them: their names, texts, schemas and
// annotations. The runtime serves them with its handlers; the generator
// counts them when it sizes a server's list (oa2mcp lint).
//
// Their descriptions are written here, not generated: they are the same
// for every API but for its name, size and areas, and every byte of them
// is read by the model on every turn.
package discoverytools

import (
	"fmt"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
)

// Listing is what the tools' texts name of a server: the tools' name
// prefix, the API's title, its areas and how many operations it hides.
type Listing struct {
	Prefix, Title, Topics string
	Operations            int
}

// Def is one discovery tool without its handler.
type Def struct {
	Name, Title, Description  string
	InputSchema, OutputSchema string
	ReadOnly, Idempotent      bool
	OpenWorld, Destructive    bool
}

const searchInput = `{"type":"object","properties":{` +
	`"query":{"type":"string","minLength":1,"maxLength":500,"description":"What the user wants done, in plain words, e.g. \"cancel a subscription\" or \"list pods in a namespace\". Leave it out to browse: without area too, the API's areas; with area, that area's operations."},` +
	`"area":{"type":"string","minLength":1,"maxLength":200,"description":"An area's name as the areas list gives it: only that area's operations (all of them, in pages, when query is left out)."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":50,"default":5,"description":"How many operations to return, best first (default 5; 20 when browsing an area)."},` +
	`"offset":{"type":"integer","minimum":0,"default":0,"description":"When browsing an area, how many of its operations to skip: the next value the previous page gave."}},` +
	`"additionalProperties":false}`

const searchOutput = `{"type":"object","properties":{"operations":{"type":"array","items":{"type":"object","properties":{` +
	`"name":{"type":"string"},"operationId":{"type":"string"},"method":{"type":"string"},"path":{"type":"string"},` +
	`"summary":{"type":"string"},"readOnly":{"type":"boolean"},"destructive":{"type":"boolean"}},` +
	`"required":["name","method","path","summary","readOnly","destructive"]}},` +
	`"areas":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"description":{"type":"string"},"operations":{"type":"integer"}},"required":["name","operations"]}},` +
	`"area":{"type":"string"},"total":{"type":"integer"},"next":{"type":"integer"},"note":{"type":"string"}},"required":["operations"]}`

const nameInput = `{"type":"object","properties":{` +
	`"name":{"type":"string","minLength":1,"maxLength":128,"description":"The operation's name as search_operations returned it."}},` +
	`"required":["name"],"additionalProperties":false}`

const describeOutput = `{"type":"object","properties":{"name":{"type":"string"},"operationId":{"type":"string"},` +
	`"method":{"type":"string"},"path":{"type":"string"},"summary":{"type":"string"},"description":{"type":"string"},` +
	`"inputSchema":{"type":"object"},"returns":{"type":"string"},"readOnly":{"type":"boolean"},` +
	`"destructive":{"type":"boolean"},"idempotent":{"type":"boolean"},"confirmation":{"type":"string"}},` +
	`"required":["name","method","path","description","inputSchema","readOnly","destructive","idempotent"]}`

const callInput = `{"type":"object","properties":{` +
	`"name":{"type":"string","minLength":1,"maxLength":128,"description":"The operation's name as search_operations returned it."},` +
	`"arguments":{"type":"object","description":"The operation's arguments, matching the inputSchema describe_operation returned; {} when it takes none."}},` +
	`"required":["name"],"additionalProperties":false}`

// name is a discovery tool's name with the prefix.
func (l Listing) name(base string) string { return l.Prefix + base }

// apiName names the API in descriptions: "the Stripe API".
func (l Listing) apiName() string {
	t := strings.TrimSpace(l.Title)
	switch {
	case t == "":
		return "this API"
	case strings.HasSuffix(strings.ToLower(t), "api"):
		return "the " + t
	}
	return "the " + t + " API"
}

// All are the three tools in the order tools/list shows them.
func All(l Listing) []Def { return []Def{Search(l), Describe(l), Call(l)} }

// Search is search_operations.
func Search(l Listing) Def {
	areas := ""
	if l.Topics != "" {
		areas = " Areas: " + l.Topics + "."
	}
	return Def{
		Name:  l.name(search.SearchToolName),
		Title: "Search API operations",
		Description: fmt.Sprintf("Find the operation of %s that does what the user asks, among its %d operations that no other tool of this server covers. "+
			"Describe the task in plain words, e.g. \"refund a payment\" or \"list the members of a group\"; the API's own nouns work best.%s "+
			"Returns up to limit operations, best first, each with the name %s and %s take, its method, path and one-line summary, and whether it is read-only or destructive. "+
			"If none fits, search again with other words, or browse: without query it lists the API's areas, and with area the operations of one. Changes nothing.",
			l.apiName(), l.Operations, areas, l.name(search.DescribeToolName), l.name(search.CallToolName)),
		InputSchema:  searchInput,
		OutputSchema: searchOutput,
		ReadOnly:     true,
		Idempotent:   true,
	}
}

// Describe is describe_operation.
func Describe(l Listing) Def {
	return Def{
		Name:  l.name(search.DescribeToolName),
		Title: "Describe an API operation",
		Description: fmt.Sprintf("Describe one operation that %s found: what it does, its input schema (the arguments %s takes for it), what it returns, "+
			"and whether it is read-only, destructive or needs the user's confirmation. Call it before %s unless you already know the inputs. Changes nothing.",
			l.name(search.SearchToolName), l.name(search.CallToolName), l.name(search.CallToolName)),
		InputSchema:  nameInput,
		OutputSchema: describeOutput,
		ReadOnly:     true,
		Idempotent:   true,
	}
}

// Call is call_operation.
func Call(l Listing) Def {
	return Def{
		Name:  l.name(search.CallToolName),
		Title: "Call an API operation",
		Description: fmt.Sprintf("Call one operation of %s by the name %s returned, with arguments matching the input schema %s showed. "+
			"Invalid arguments are reported, with what to fix, before anything is sent. A destructive operation (one that deletes or overwrites data) first asks the user to confirm, "+
			"and is refused when this client cannot ask. Returns the API's response; errors say what went wrong and what to do next.",
			l.apiName(), l.name(search.SearchToolName), l.name(search.DescribeToolName)),
		InputSchema: callInput,
		OpenWorld:   true,
		Destructive: true,
	}
}
