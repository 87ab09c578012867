package storage

import (
	"context"
	"time"
)

// Upload is an image a project uploaded, served at /uploads/<name>.
type Upload struct {
	Name        string
	ProjectID   string
	ContentType string
	Data        []byte
	CreatedAt   time.Time
}

// InsertUpload stores an upload.
func (tx *Tx) InsertUpload(ctx context.Context, u Upload) (err error) {
	defer wrap(&err, "Tx.InsertUpload")
	_, err = tx.Exec(ctx, `INSERT INTO uploads (name, project_id, content_type, data, created_at) VALUES (?, ?, ?, ?, ?)`,
		u.Name, u.ProjectID, u.ContentType, u.Data, Millis(u.CreatedAt))
	return err
}

// UploadByName finds an upload.
func UploadByName(ctx context.Context, q Querier, name string) (_ Upload, err error) {
	defer wrap(&err, "UploadByName")
	var u Upload
	var created int64
	err = q.QueryRow(ctx, `SELECT name, project_id, content_type, data, created_at FROM uploads WHERE name = ?`, name).
		Scan(&u.Name, &u.ProjectID, &u.ContentType, &u.Data, &created)
	u.CreatedAt = FromMillis(created)
	return u, notFound(err)
}
