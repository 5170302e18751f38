package lint

import (
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// verbs start verb-object tool names. The list is generous: a name
// starting with any of them reads as an action.
var verbs = oa2mcpimpl.WordSet(`abort accept acknowledge activate add adjust allocate analyze append apply approve archive
assign attach authenticate authorize backup batch block book bulk calculate call cancel capture change
check checkout claim clear clone close collect commit compare complete compute configure confirm connect convert copy
count create deactivate decline decrypt delete deny deploy describe detach detect disable disconnect dismiss download
drop duplicate edit enable encrypt end enqueue estimate evaluate exchange execute expire explain export extend fetch
file fill filter find finish flag follow fork generate get grant import increment index init initiate insert inspect install
invite invoke issue join kill launch link list load lock log login logout look lookup manage mark merge migrate modify monitor
mount move mute notify open order patch pause pay place poll post predict preview print process promote publish pull
purchase purge push put query queue read reboot receive reconcile redeem refresh refund register reject release reload
remove rename render renew reopen replace reply report request reschedule reserve reset resize resolve restart restore
resume retrieve retry return revert revoke rollback rotate run save scale scan schedule search select send set share
show sign simulate skip snooze sort split start stop stream submit subscribe suggest summarize suspend swap sync tag
terminate test toggle track transfer transform translate trigger unassign unarchive unblock unfollow uninstall unlink
unlock unmute unpublish unsubscribe unwatch update upgrade upload upsert validate verify view void vote watch withdraw write
allow answer ask assess bill bind borrow buy charge classify comment compose deliver dispatch draft escalate
fix hide hold lend measure pin plan prepare rank rate recommend remind rent repair resend review sell ship unpin`)

// creatingVerbs start names of tools that create lasting state.
var creatingVerbs = oa2mcpimpl.WordSet(`add book borrow buy create generate init initiate insert invite issue open order place purchase
register reserve schedule start submit subscribe upload upsert`)

// destructiveVerbs start names of tools that destroy or cancel.
var destructiveVerbs = oa2mcpimpl.WordSet(`cancel delete destroy drop erase kill purge remove revoke terminate uninstall void wipe`)

// IsVerb reports whether the lower-case word is one of the verbs a
// verb-object tool name may start with. generator/scaffold names its
// draft tools with the same vocabulary, so its names pass this linter.
func IsVerb(word string) bool { return verbs[word] }

// IsLookupVerb reports whether the lower-case word only reads a resource
// another way (find, search, list, ...).
func IsLookupVerb(word string) bool { return lookupVerbs[word] }

// IsActionSegment reports whether a path segment names an action on a
// resource (findByStatus, login) rather than a resource.
func IsActionSegment(seg string) bool { return isAction(seg) }

// IsDestructiveVerb reports whether a tool name starting with the
// lower-case word deletes or cancels something (delete, cancel, revoke).
func IsDestructiveVerb(word string) bool { return destructiveVerbs[word] }

// nameWords splits a tool name into lower-case words at "_", "-", "."
// and camel-case humps.
func nameWords(name string) []string {
	return strings.FieldsFunc(mapping.SnakeCase(name), func(r rune) bool { return r == '_' })
}

// namespaceOf returns the namespace prefix of a tool name (with its
// trailing "_"), or "". A namespace is the server name in snake case, or
// a first word all tools share that is not a verb.
func namespaceOf(srv *ir.Server, name string) string {
	if ns := mapping.SnakeCase(srv.Name) + "_"; strings.HasPrefix(name, ns) && len(name) > len(ns) {
		return ns
	}
	words := nameWords(name)
	if len(words) < 2 || verbs[words[0]] || len(srv.Tools) < 2 {
		return ""
	}
	prefix := name[:len(words[0])] + "_"
	for _, t := range srv.Tools {
		if !strings.HasPrefix(t.Name, prefix) {
			return ""
		}
	}
	return prefix
}
