package app

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// MaxImportBytes is the largest CSV file POST /contacts/import takes.
const MaxImportBytes = 5 << 20

// importChunk is how many rows one write commits: large enough to amortise
// the transaction, small enough not to hold the write lock for long.
const importChunk = 500

// maxImportErrors bounds the per-row reasons kept in an import result.
const maxImportErrors = 100

// ImportResult counts what an import did and why rows were rejected.
type ImportResult struct {
	Created  int           `json:"created"`
	Updated  int           `json:"updated"`
	Rejected int           `json:"rejected"`
	Errors   []ImportError `json:"errors"`
}

// ImportError is why one row was rejected; Row counts lines as a
// spreadsheet does, the header being row 1.
type ImportError struct {
	Row    int    `json:"row"`
	Reason string `json:"reason"`
}

// importCheckpoint is saved with every chunk: the next data row to process
// and the counts so far.
type importCheckpoint struct {
	Row    int          `json:"row"`
	Result ImportResult `json:"result"`
}

type importPayload struct {
	CSV string `json:"csv"`
}

// JobAccepted is the 202 answer to a queued import or bulk request.
type JobAccepted struct {
	JobID string `json:"jobId"`
}

// ImportContacts checks a CSV file's header and queues its import.
func (a *App) ImportContacts(ctx context.Context, projectID string, file []byte) (JobAccepted, error) {
	if len(file) > MaxImportBytes {
		return JobAccepted{}, &Error{Kind: KindTooLarge, Code: "PAYLOAD_TOO_LARGE", Message: "CSV files are limited to 5 MB"}
	}
	if _, err := readImportHeader(csv.NewReader(bytes.NewReader(file))); err != nil {
		return JobAccepted{}, Invalid(FieldError{Field: "file", Code: "invalid_csv", Message: err.Error()})
	}
	var id string
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		id, err = a.jobs.Enqueue(ctx, tx, queue.JobSpec{Kind: JobImportContacts, ProjectID: projectID,
			Payload: importPayload{CSV: string(file)}})
		return err
	})
	return JobAccepted{JobID: id}, err
}

// readImportHeader reads the header row: email first, then data keys.
func readImportHeader(r *csv.Reader) ([]string, error) {
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the file is empty: the first row must be a header starting with email")
	}
	if err != nil {
		return nil, errors.New("the file is not valid CSV: " + err.Error())
	}
	for i := range header {
		header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
	}
	if !strings.EqualFold(header[0], "email") {
		return nil, errors.New("the first column of the header must be email")
	}
	return header, nil
}

// runImport processes the file in chunks. Each chunk's contacts and the
// job's checkpoint commit together, so a rerun after a crash resumes at
// the first row not yet committed and counts nothing twice.
func (a *App) runImport(ctx context.Context, job *queue.RunningJob) (any, error) {
	var p importPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil, queue.Permanent(err)
	}
	cp := importCheckpoint{Result: ImportResult{Errors: []ImportError{}}}
	if job.Checkpoint != nil {
		if err := json.Unmarshal(job.Checkpoint, &cp); err != nil {
			return nil, queue.Permanent(err)
		}
	}
	r := csv.NewReader(strings.NewReader(p.CSV))
	header, err := readImportHeader(r)
	if err != nil {
		return nil, queue.Permanent(err)
	}
	rows, err := readRows(r)
	if err != nil {
		return nil, queue.Permanent(err)
	}
	for cp.Row < len(rows) {
		next, err := a.importChunk(ctx, job, header, rows, cp)
		if err != nil {
			return nil, err
		}
		cp = next
	}
	return cp.Result, nil
}

// importChunk imports the next chunk of rows after cp and returns the new
// checkpoint, committed with the rows. The write may run more than once
// (the writer reruns a group when one of its writes fails), so each run
// starts again from cp and changes nothing outside the transaction.
func (a *App) importChunk(ctx context.Context, job *queue.RunningJob, header []string, rows [][]string, cp importCheckpoint) (importCheckpoint, error) {
	end := min(cp.Row+importChunk, len(rows))
	var next importCheckpoint
	err := a.db.Write(ctx, func(tx *storage.Tx) error {
		next = cp
		next.Result.Errors = append([]ImportError(nil), cp.Result.Errors...)
		for i := cp.Row; i < end; i++ {
			if err := a.importRow(ctx, tx, job.ProjectID, header, rows[i], i+2, &next.Result); err != nil {
				return err
			}
		}
		next.Row = end
		return job.SaveProgress(ctx, tx, 100*end/len(rows), next)
	})
	return next, err
}

// readRows reads every data row. Rows with a field count unlike the
// header's are kept, to be rejected one by one; broken quoting fails all.
func readRows(r *csv.Reader) ([][]string, error) {
	var rows [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) && perr.Err != csv.ErrFieldCount {
			return nil, errors.New("the file is not valid CSV: " + err.Error())
		}
		rows = append(rows, rec)
	}
}

func (a *App) importRow(ctx context.Context, tx *storage.Tx, projectID string, header, row []string, line int, res *ImportResult) error {
	reject := func(reason string) {
		res.Rejected++
		if len(res.Errors) < maxImportErrors {
			res.Errors = append(res.Errors, ImportError{Row: line, Reason: reason})
		}
	}
	if len(row) > len(header) {
		reject("row has more fields than the header")
		return nil
	}
	var v Validation
	email := checkEmail(&v, "email", row[0])
	if email == "" {
		reject("missing email")
		return nil
	}
	if v.Err() != nil {
		reject("invalid email: " + row[0])
		return nil
	}
	in := contactUpsert{email: email, newSubscribed: true, reason: ReasonAPI}
	data := map[string]any{}
	for i := 1; i < len(row); i++ {
		key := header[i]
		switch {
		case key == "":
		case strings.EqualFold(key, "subscribed"):
			if b, err := strconv.ParseBool(strings.TrimSpace(row[i])); err == nil {
				in.subscribed = &b
			}
		default:
			data[key] = row[i]
		}
	}
	in.data = ParseData(data)
	change, err := a.upsertContact(ctx, tx, projectID, in)
	if err != nil {
		return err
	}
	if change.created {
		res.Created++
	} else {
		res.Updated++
	}
	return nil
}
