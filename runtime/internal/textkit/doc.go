// Package textkit holds the wording and naming rules that the runtime and
// the generator share: articles, "did you mean" suggestions, quoted lists
// and sorted keys. The generator reaches them through oa2mcpimpl.
package textkit
