package backend

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// maxImageBytes bounds uploaded images.
const maxImageBytes = 10 << 20

// petStatuses is the Pet.status enum.
var petStatuses = []string{"available", "pending", "sold"}

var (
	errPetNotFound = errorf(http.StatusNotFound, "Pet not found")
	errInvalidID   = errorf(http.StatusBadRequest, "Invalid ID supplied")
)

// petFromForm decodes a form-encoded Pet (see formValues for key syntax).
func petFromForm(f *formValues) (Pet, error) {
	p := Pet{
		ID:        f.int("id", 64),
		Name:      f.str("name"),
		Status:    f.str("status"),
		PhotoURLs: f.list("photoUrls"),
		Category:  categoryFromForm(f),
		Tags:      tagsFromForm(f),
	}
	return p, f.err
}

// categoryFromForm reads category.id / category.name, a JSON object in
// "category", or a bare category name.
func categoryFromForm(f *formValues) *Category {
	var c Category
	if f.has("category") && f.jsonValue("category", f.str("category"), &c) {
		return &c
	}
	if !f.has("category") && !f.has("category.id") && !f.has("category.name") {
		return nil
	}
	c = Category{ID: f.int("category.id", 64), Name: f.str("category.name")}
	if c.Name == "" {
		c.Name = f.str("category")
	}
	return &c
}

// tagsFromForm reads repeated "tags" / "tags.name" values (tag names or JSON
// tags) and indexed "tags.N.id" / "tags.N.name" fields.
func tagsFromForm(f *formValues) []Tag {
	var tags []Tag
	for _, key := range []string{"tags", "tags.name"} {
		for _, v := range f.vals[key] {
			tags = append(tags, f.tagValues(key, v)...)
		}
	}
	for _, i := range f.indexes("tags") {
		prefix := "tags." + strconv.Itoa(i)
		tags = append(tags, Tag{ID: f.int(prefix+".id", 64), Name: f.str(prefix + ".name")})
	}
	return tags
}

// tagValues decodes one "tags" value: a JSON array of tags, a JSON tag, or
// a bare tag name.
func (f *formValues) tagValues(key, v string) []Tag {
	var many []Tag
	if strings.HasPrefix(strings.TrimSpace(v), "[") {
		f.jsonValue(key, v, &many)
		return many
	}
	var one Tag
	if !f.jsonValue(key, v, &one) {
		one = Tag{Name: v}
	}
	return []Tag{one}
}

// validatePet defaults the status and enforces the schema's required fields
// and enum, answering 422 on failure.
func validatePet(p *Pet) error {
	if p.Status == "" {
		p.Status = "available"
	}
	switch {
	case strings.TrimSpace(p.Name) == "":
		return errorf(http.StatusUnprocessableEntity, "Validation exception: name is required")
	case p.PhotoURLs == nil:
		return errorf(http.StatusUnprocessableEntity, "Validation exception: photoUrls is required")
	case !slices.Contains(petStatuses, p.Status):
		return errorf(http.StatusUnprocessableEntity, "Validation exception: status must be one of available, pending, sold")
	}
	return nil
}

// addPet implements POST /pet (addPet).
func (s *server) addPet(w http.ResponseWriter, r *http.Request) {
	p, err := decodeBody(w, r, petFromForm)
	if err == nil {
		err = validatePet(&p)
	}
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.db.addPet(p))
}

// updatePet implements PUT /pet (updatePet): a full replacement by id.
func (s *server) updatePet(w http.ResponseWriter, r *http.Request) {
	p, err := decodeBody(w, r, petFromForm)
	if err == nil && p.ID < 1 {
		err = errInvalidID
	}
	if err == nil {
		err = validatePet(&p)
	}
	if err != nil {
		writeErr(w, err)
		return
	}
	updated, ok := s.db.updatePet(p.ID, func(old *Pet) { *old = p })
	if !ok {
		writeErr(w, errPetNotFound)
		return
	}
	writeJSON(w, http.StatusOK, updated)
}

// splitMulti flattens repeated and comma-separated query values, dropping
// empty items.
func splitMulti(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// findPetsByStatus implements GET /pet/findByStatus; status defaults to
// "available" and may be repeated or comma-separated.
func (s *server) findPetsByStatus(w http.ResponseWriter, r *http.Request) {
	statuses := splitMulti(r.URL.Query()["status"])
	if len(statuses) == 0 {
		statuses = []string{"available"}
	}
	for _, st := range statuses {
		if !slices.Contains(petStatuses, st) {
			writeError(w, http.StatusBadRequest, "Invalid status value")
			return
		}
	}
	pets := s.db.findPets(func(p Pet) bool { return slices.Contains(statuses, p.Status) })
	writeJSON(w, http.StatusOK, pets)
}

// findPetsByTags implements GET /pet/findByTags: pets having any of the tags
// (repeated "tags" parameters or comma-separated values).
func (s *server) findPetsByTags(w http.ResponseWriter, r *http.Request) {
	tags := splitMulti(r.URL.Query()["tags"])
	if len(tags) == 0 {
		writeError(w, http.StatusBadRequest, "Invalid tag value: no tags provided")
		return
	}
	pets := s.db.findPets(func(p Pet) bool {
		return slices.ContainsFunc(p.Tags, func(t Tag) bool { return slices.Contains(tags, t.Name) })
	})
	writeJSON(w, http.StatusOK, pets)
}

// getPetByID implements GET /pet/{petId}.
func (s *server) getPetByID(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "petId")
	if err != nil {
		writeErr(w, err)
		return
	}
	p, ok := s.db.pet(id)
	if !ok {
		writeErr(w, errPetNotFound)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// updatePetWithForm implements POST /pet/{petId}: name and status come from
// the query string (a form-encoded body is accepted too).
func (s *server) updatePetWithForm(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "petId")
	if err != nil {
		writeErr(w, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	if err := r.ParseForm(); err != nil {
		writeErr(w, errInvalidInput(err.Error()))
		return
	}
	name, status := strings.TrimSpace(r.Form.Get("name")), strings.TrimSpace(r.Form.Get("status"))
	if status != "" && !slices.Contains(petStatuses, status) {
		writeError(w, http.StatusBadRequest, "Invalid input: status must be one of available, pending, sold")
		return
	}
	p, ok := s.db.updatePet(id, func(p *Pet) {
		if name != "" {
			p.Name = name
		}
		if status != "" {
			p.Status = status
		}
	})
	if !ok {
		writeErr(w, errPetNotFound)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// deletePet implements DELETE /pet/{petId}; the optional api_key header is
// accepted and ignored.
func (s *server) deletePet(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "petId")
	if err != nil {
		writeError(w, http.StatusBadRequest, "Invalid pet value")
		return
	}
	if !s.db.deletePet(id) {
		writeErr(w, errPetNotFound)
		return
	}
	writeAck(w, "Pet deleted")
}

// uploadFile implements POST /pet/{petId}/uploadImage with an
// application/octet-stream body and an optional additionalMetadata query.
func (s *server) uploadFile(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "petId")
	if err != nil {
		writeErr(w, err)
		return
	}
	data, err := readLimited(w, r, maxImageBytes)
	if err == nil && len(data) == 0 {
		err = errorf(http.StatusBadRequest, "No file uploaded")
	}
	if err != nil {
		writeErr(w, err)
		return
	}
	n, ok := s.db.addImage(id)
	if !ok {
		writeErr(w, errPetNotFound)
		return
	}
	msg := fmt.Sprintf("additionalMetadata: %s\nFile uploaded to pet %d as image %d, %d bytes",
		r.URL.Query().Get("additionalMetadata"), id, n, len(data))
	writeJSON(w, http.StatusOK, APIResponse{Code: http.StatusOK, Type: "unknown", Message: msg})
}
