package backend

import (
	"slices"
	"sync"
)

// Category is the Category schema of the Petstore document.
type Category struct {
	ID   int64  `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// Tag is the Tag schema of the Petstore document.
type Tag struct {
	ID   int64  `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// Pet is the Pet schema of the Petstore document; name and photoUrls are
// required.
type Pet struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Category  *Category `json:"category,omitempty"`
	PhotoURLs []string  `json:"photoUrls"`
	Tags      []Tag     `json:"tags"`
	Status    string    `json:"status,omitempty"`
}

// Order is the Order schema of the Petstore document.
type Order struct {
	ID       int64  `json:"id"`
	PetID    int64  `json:"petId"`
	Quantity int32  `json:"quantity"`
	ShipDate string `json:"shipDate,omitempty"`
	Status   string `json:"status,omitempty"`
	Complete bool   `json:"complete"`
}

// User is the User schema of the Petstore document.
type User struct {
	ID         int64  `json:"id"`
	Username   string `json:"username"`
	FirstName  string `json:"firstName,omitempty"`
	LastName   string `json:"lastName,omitempty"`
	Email      string `json:"email,omitempty"`
	Password   string `json:"password,omitempty"`
	Phone      string `json:"phone,omitempty"`
	UserStatus int32  `json:"userStatus"`
}

// APIResponse is the ApiResponse schema; it is also the body of every error
// and acknowledgement this backend sends.
type APIResponse struct {
	Code    int    `json:"code"`
	Type    string `json:"type,omitempty"`
	Message string `json:"message"`
}

// clone returns a deep copy of p, so stored pets never share slices with
// values handed out to handlers.
func (p Pet) clone() Pet {
	if p.Category != nil {
		c := *p.Category
		p.Category = &c
	}
	p.PhotoURLs = slices.Clone(p.PhotoURLs)
	p.Tags = slices.Clone(p.Tags)
	if p.PhotoURLs == nil {
		p.PhotoURLs = []string{}
	}
	if p.Tags == nil {
		p.Tags = []Tag{}
	}
	return p
}

// memDB is the in-memory data store; every method takes the mutex.
type memDB struct {
	mu        sync.Mutex
	pets      map[int64]Pet
	orders    map[int64]Order
	users     map[string]User
	images    map[int64]int
	nextPet   int64
	nextOrder int64
	nextUser  int64
}

// nextID returns the first id at or above *next not used in m and advances
// *next past it.
func nextID[V any](m map[int64]V, next *int64) int64 {
	for {
		id := *next
		*next++
		if _, used := m[id]; !used {
			return id
		}
	}
}

// sortedValues returns the values of m ordered by key.
func sortedValues[V any](m map[int64]V, keep func(V) bool) []V {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]V, 0, len(keys))
	for _, k := range keys {
		if keep(m[k]) {
			out = append(out, m[k])
		}
	}
	return out
}

func (db *memDB) pet(id int64) (Pet, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	p, ok := db.pets[id]
	return p.clone(), ok
}

func (db *memDB) findPets(keep func(Pet) bool) []Pet {
	db.mu.Lock()
	defer db.mu.Unlock()
	out := sortedValues(db.pets, keep)
	for i := range out {
		out[i] = out[i].clone()
	}
	return out
}

// addPet stores p under its own id when positive (replacing any pet with
// that id, as the reference Petstore does), else under the next free id.
func (db *memDB) addPet(p Pet) Pet {
	db.mu.Lock()
	defer db.mu.Unlock()
	if p.ID <= 0 {
		p.ID = nextID(db.pets, &db.nextPet)
	}
	db.pets[p.ID] = p.clone()
	return p.clone()
}

// updatePet applies change to the stored pet id and reports whether it exists.
func (db *memDB) updatePet(id int64, change func(*Pet)) (Pet, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	p, ok := db.pets[id]
	if !ok {
		return Pet{}, false
	}
	p = p.clone()
	change(&p)
	p.ID = id
	db.pets[id] = p
	return p.clone(), true
}

func (db *memDB) deletePet(id int64) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	_, ok := db.pets[id]
	delete(db.pets, id)
	delete(db.images, id)
	return ok
}

// addImage records an uploaded image for pet id and returns its sequence
// number, or false when the pet does not exist.
func (db *memDB) addImage(id int64) (int, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if _, ok := db.pets[id]; !ok {
		return 0, false
	}
	db.images[id]++
	return db.images[id], true
}

// inventory counts pets per status; the three enum statuses are always present.
func (db *memDB) inventory() map[string]int32 {
	db.mu.Lock()
	defer db.mu.Unlock()
	inv := map[string]int32{"available": 0, "pending": 0, "sold": 0}
	for _, p := range db.pets {
		inv[p.Status]++
	}
	return inv
}

func (db *memDB) addOrder(o Order) Order {
	db.mu.Lock()
	defer db.mu.Unlock()
	if o.ID <= 0 {
		o.ID = nextID(db.orders, &db.nextOrder)
	}
	db.orders[o.ID] = o
	return o
}

func (db *memDB) order(id int64) (Order, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	o, ok := db.orders[id]
	return o, ok
}

func (db *memDB) deleteOrder(id int64) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	_, ok := db.orders[id]
	delete(db.orders, id)
	return ok
}

func (db *memDB) user(name string) (User, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	u, ok := db.users[name]
	return u, ok
}

// addUsers stores users keyed by username, replacing existing entries (and
// keeping their id when the new value has none).
func (db *memDB) addUsers(users ...User) []User {
	db.mu.Lock()
	defer db.mu.Unlock()
	for i, u := range users {
		if old, ok := db.users[u.Username]; ok && u.ID <= 0 {
			u.ID = old.ID
		}
		if u.ID <= 0 {
			u.ID = db.nextUserID()
		}
		db.users[u.Username] = u
		users[i] = u
	}
	return users
}

// nextUserID returns an id not used by any user; db.mu must be held.
func (db *memDB) nextUserID() int64 {
	byID := make(map[int64]User, len(db.users))
	for _, u := range db.users {
		byID[u.ID] = u
	}
	return nextID(byID, &db.nextUser)
}

// errUsernameTaken is returned by replaceUser when a rename collides.
type errUsernameTaken struct{}

func (errUsernameTaken) Error() string { return "username already taken" }

// replaceUser replaces the user called name by u (renaming when u.Username
// differs). It reports false when name does not exist.
func (db *memDB) replaceUser(name string, u User) (User, bool, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	old, ok := db.users[name]
	if !ok {
		return User{}, false, nil
	}
	if _, taken := db.users[u.Username]; taken && u.Username != name {
		return User{}, true, errUsernameTaken{}
	}
	if u.ID <= 0 {
		u.ID = old.ID
	}
	delete(db.users, name)
	db.users[u.Username] = u
	return u, true, nil
}

func (db *memDB) deleteUser(name string) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	_, ok := db.users[name]
	delete(db.users, name)
	return ok
}
