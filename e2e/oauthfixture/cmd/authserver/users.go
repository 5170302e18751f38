package main

import (
	"fmt"
	"strings"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"
)

// userStore holds the users of --users; a user's id (the token subject)
// is their name, so test logs read alike on both sides.
type userStore map[string]*storage.User

func parseUsers(s string) (userStore, error) {
	users := userStore{}
	for _, pair := range splitList(s) {
		name, password, ok := strings.Cut(pair, ":")
		if !ok || name == "" || password == "" {
			return nil, fmt.Errorf("--users: %q is not NAME:PASSWORD", pair)
		}
		users[name] = &storage.User{ID: name, Username: name, Password: password, FirstName: name,
			Email: name + "@example.com", EmailVerified: true, PreferredLanguage: language.English}
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("--users: no users")
	}
	return users, nil
}

func (u userStore) GetUserByID(id string) *storage.User { return u[id] }

func (u userStore) GetUserByUsername(name string) *storage.User { return u[name] }

// ExampleClientID names the example's JWT-profile service user, which
// these tests do not use.
func (u userStore) ExampleClientID() string { return storage.ServiceUserID }
