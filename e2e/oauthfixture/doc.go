// Package oauthfixture holds the real authorization server and the real
// upstream API the end-to-end tests of per-user upstream credentials run
// against: cmd/authserver (an OpenID provider built on zitadel/oidc's
// example storage, bound to loopback) and cmd/notesapi (a notes API that
// verifies the bearer JWTs that provider issues and scopes its data to
// the token's subject). It is a module of its own so that its
// dependencies stay out of the oa2mcp modules; scripts/install-deps.sh
// builds both into .cache/bin.
package oauthfixture
