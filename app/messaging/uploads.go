package messaging

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// MaxUploadBytes is the largest image POST /uploads/image takes.
const MaxUploadBytes = 5 << 20

// imageTypes are the types an upload may be, by what its bytes are (as
// http.DetectContentType sniffs them), with the extension of its URL.
var imageTypes = map[string]string{"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}

// UploadResult is the answer of POST /uploads/image.
type UploadResult struct {
	URL string `json:"url"`
}

func notAnImage(msg string) error {
	return apierr.Invalid(apierr.FieldError{Field: "file", Code: "invalid_type", Message: msg})
}

// SaveUpload stores an image in the database (so that a backup of it
// holds the uploads) under a name of 128 random bits and its extension.
// The bytes decide the type: they must be a PNG, JPEG, GIF or WebP image,
// and the type the client declared for the part, when it names an image
// type, must be the same.
func (s *Service) SaveUpload(ctx context.Context, projectID string, data []byte, declared string) (UploadResult, error) {
	if len(data) == 0 {
		return UploadResult{}, notAnImage("The file is empty")
	}
	if len(data) > MaxUploadBytes {
		return UploadResult{}, &apierr.Error{Kind: apierr.KindTooLarge, Code: "PAYLOAD_TOO_LARGE", Message: "The image is larger than 5 MiB"}
	}
	ct := http.DetectContentType(data)
	ext, ok := imageTypes[ct]
	if !ok {
		return UploadResult{}, notAnImage("The file is not a PNG, JPEG, GIF or WebP image")
	}
	declared = strings.ToLower(strings.TrimSpace(strings.Split(declared, ";")[0]))
	if declared == "image/jpg" {
		declared = "image/jpeg"
	}
	if strings.HasPrefix(declared, "image/") && declared != ct {
		return UploadResult{}, notAnImage("The file is declared " + declared + " but is " + ct)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	u := storage.Upload{Name: hex.EncodeToString(b[:]) + "." + ext, ProjectID: projectID, ContentType: ct, Data: data,
		CreatedAt: s.now()}
	if err := s.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertUpload(ctx, u) }); err != nil {
		return UploadResult{}, err
	}
	return UploadResult{URL: strings.TrimSuffix(s.baseURL, "/") + "/uploads/" + u.Name}, nil
}

// Upload returns a stored image by its name.
func (s *Service) Upload(ctx context.Context, name string) (storage.Upload, error) {
	u, err := storage.UploadByName(ctx, s.db.Reader(), name)
	if errors.Is(err, storage.ErrNotFound) {
		return u, apierr.NotFound("NOT_FOUND", "No such upload")
	}
	return u, err
}
