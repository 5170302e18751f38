package backend

// Seed categories and tags shared by the seeded pets.
var (
	dogs = Category{ID: 1, Name: "Dogs"}
	cats = Category{ID: 2, Name: "Cats"}

	tag1     = Tag{ID: 1, Name: "tag1"}
	tag2     = Tag{ID: 2, Name: "tag2"}
	tag3     = Tag{ID: 3, Name: "tag3"}
	friendly = Tag{ID: 4, Name: "friendly"}
	playful  = Tag{ID: 5, Name: "playful"}
)

// seedPet builds a seeded pet with one photo URL derived from its name.
func seedPet(id int64, name string, c Category, status string, tags ...Tag) Pet {
	return Pet{
		ID:        id,
		Name:      name,
		Category:  &c,
		PhotoURLs: []string{"https://example.com/photos/" + name + ".jpg"},
		Tags:      tags,
		Status:    status,
	}
}

// seedPets returns the ten pets every new handler starts with.
func seedPets() []Pet {
	return []Pet{
		seedPet(1, "Rex", dogs, "available", tag1, friendly),
		seedPet(2, "Whiskers", cats, "available", tag2),
		seedPet(3, "Buddy", dogs, "pending", tag1, playful),
		seedPet(4, "Luna", cats, "sold", tag3),
		seedPet(5, "Max", dogs, "available", tag2, tag3),
		seedPet(6, "Bella", cats, "pending", friendly),
		seedPet(7, "Charlie", dogs, "sold", playful),
		seedPet(8, "Milo", cats, "available", tag1),
		seedPet(9, "Daisy", dogs, "available", friendly, playful),
		seedPet(10, "Simba", cats, "pending", tag3),
	}
}

// seedOrders returns the three orders every new handler starts with.
func seedOrders() []Order {
	return []Order{
		{ID: 1, PetID: 4, Quantity: 1, ShipDate: "2024-01-15T10:00:00Z", Status: "delivered", Complete: true},
		{ID: 2, PetID: 7, Quantity: 2, ShipDate: "2024-02-20T14:30:00Z", Status: "approved"},
		{ID: 3, PetID: 3, Quantity: 1, ShipDate: "2024-03-05T09:15:00Z", Status: "placed"},
	}
}

// seedUsers returns the two users every new handler starts with.
func seedUsers() []User {
	return []User{
		{ID: 1, Username: "user1", FirstName: "First1", LastName: "Last1",
			Email: "user1@example.com", Password: "password1", Phone: "555-0101", UserStatus: 1},
		{ID: 2, Username: "user2", FirstName: "First2", LastName: "Last2",
			Email: "user2@example.com", Password: "password2", Phone: "555-0102", UserStatus: 1},
	}
}

// newMemDB returns a freshly seeded store.
func newMemDB() *memDB {
	db := &memDB{
		pets:      map[int64]Pet{},
		orders:    map[int64]Order{},
		users:     map[string]User{},
		images:    map[int64]int{},
		nextPet:   1,
		nextOrder: 1,
		nextUser:  1,
	}
	for _, p := range seedPets() {
		db.pets[p.ID] = p.clone()
	}
	for _, o := range seedOrders() {
		db.orders[o.ID] = o
	}
	for _, u := range seedUsers() {
		db.users[u.Username] = u
	}
	return db
}
