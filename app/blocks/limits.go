package blocks

// The bounds of a document. They keep a stored document, its rendering and
// a 422's list of problems small whatever a client sends; a real email
// stays far inside each of them.
const (
	// MaxDocumentBytes bounds the JSON Decode reads (the API's body limit
	// is 1 MiB; a document of this size renders to about twice as much).
	MaxDocumentBytes = 512 << 10

	MaxRows            = 100 // rows in a document (at least 1)
	MaxColumns         = 3   // columns in a row (at least 1)
	MaxColumnBlocks    = 50  // blocks in one column (it may be empty)
	MaxBlocks          = 300 // blocks in the whole document
	MaxHeadingChars    = 300
	MaxTextHTMLChars   = 20000 // the source of one text block
	MaxButtonTextChars = 200
	MaxAltChars        = 500
	MaxFooterChars     = 2000
	MaxURLChars        = 2048 // an href or an image's src
	MinLevel, MaxLevel = 1, 3 // heading levels
	MinSpacer          = 4    // spacer height in pixels
	MaxSpacer          = 120
	// MaxTextDepth bounds how deeply a text block's elements nest
	// (<p><b><i>... ), so that a hostile source cannot make a deep stack.
	MaxTextDepth = 10
	// maxProblems bounds the items of one 422: past it, later problems
	// are left out (fix the first ones, send again).
	maxProblems = 50
)
