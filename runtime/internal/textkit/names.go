package textkit

import (
	"strings"
	"unicode"
)

// The one rule for names of secrets and of personal data. The runtime
// redacts values of such names from logs and error texts; the generator
// refuses to mirror a secret-named input into a header.

// secretWords are the words (of a name split at _, -, . and camelCase)
// that make it name a secret.
var secretWords = WordSet("pass password passwd passphrase passcode pwd pin cvv cvc csc otp totp hotp mfa " +
	"token secret key apikey credential credentials auth authorization authentication cookie session " +
	"signature private privatekey jwt bearer csrf xsrf")

// secretInfixes catch secrets in names written as one word (apiKey
// splits, "accesstoken" does not).
var secretInfixes = []string{"password", "passwd", "passphrase", "passcode", "secret", "token", "apikey",
	"credential", "authoriz", "authentic", "signature", "cookie", "privatekey"}

// personalWords are words of names of personal data, redacted in logs.
var personalWords = WordSet("email mail phone mobile telephone tel fax msisdn birthday birthdate dob ssn " +
	"passport iban card address street postcode postal zip zipcode surname firstname lastname fullname " +
	"taxid nationalid ip")

var personalInfixes = []string{"email", "phone", "birth", "passport", "iban", "creditcard", "cardnumber",
	"postcode", "zipcode", "surname", "firstname", "lastname", "fullname", "nationalid", "taxid",
	"socialsecurity", "address"}

// IsSecretName reports whether an input or parameter name names a secret
// (a password, passphrase, PIN, token, key, credential, session, ...):
// such values are never logged, never mirrored into an HTTP header and
// removed from upstream error text. Words are compared whole, so
// "author" or "keyword" are no secrets; "access_token", "apiKey" and
// "passphrase" are.
func IsSecretName(name string) bool { return nameMatches(name, secretWords, secretInfixes) }

// IsPersonalName reports whether a name names personal data (e-mail,
// phone, address, birth date, IBAN, card number, ...).
func IsPersonalName(name string) bool { return nameMatches(name, personalWords, personalInfixes) }

func nameMatches(name string, words map[string]bool, infixes []string) bool {
	ws := nameWords(name)
	for _, w := range ws {
		if words[w] {
			return true
		}
	}
	joined := strings.Join(ws, "")
	for _, in := range infixes {
		if strings.Contains(joined, in) {
			return true
		}
	}
	return false
}

// nameWords splits a name at non-letters and lower-to-upper case
// changes, lower-cased: "X-Api-Key" and "xApiKey" give x, api, key.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

// WordSet turns a space-separated list into a set.
func WordSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}
