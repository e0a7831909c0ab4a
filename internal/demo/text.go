package demo

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRegexMatches bounds the number of matches regex_find returns.
const maxRegexMatches = 1000

func registerText(srv *mcp.Server) {
	addTool(srv, "word_count", "Word count",
		"Counts the bytes, Unicode code points (runes), whitespace-separated words and lines of a text, like wc.",
		wordCount)
	addTool(srv, "hash", "Hash",
		"Computes the hex-encoded cryptographic digest of a text's UTF-8 bytes. Algorithms: sha256 (default), sha1, md5, sha512.",
		hashText)
	addTool(srv, "base64", "Base64",
		"Encodes a text as standard base64, or decodes base64 (standard or URL alphabet, padded or not) back to text.",
		base64Text)
	addTool(srv, "url_encode", "URL encode",
		"Percent-encodes a text for use in a URL query component, or decodes such an encoding.",
		urlEncode)
	addTool(srv, "regex_find", "Regex find",
		"Finds matches of a regular expression (RE2 syntax, as in Go's regexp package) in a text. "+
			"Returns a JSON list of {match, start, end, groups} objects; start and end are byte offsets.",
		regexFind)
}

type wordCountInput struct {
	Text string `json:"text" jsonschema:"the text to count"`
}

type wordCountOutput struct {
	Characters int `json:"characters" jsonschema:"length of the text in bytes of UTF-8, like wc -c"`
	Runes      int `json:"runes" jsonschema:"number of Unicode code points, like wc -m"`
	Words      int `json:"words" jsonschema:"number of whitespace-separated words, like wc -w"`
	Lines      int `json:"lines" jsonschema:"number of lines, counting a final line without a trailing newline"`
}

func wordCount(_ context.Context, _ *mcp.CallToolRequest, in wordCountInput) (*mcp.CallToolResult, wordCountOutput, error) {
	lines := strings.Count(in.Text, "\n")
	if in.Text != "" && !strings.HasSuffix(in.Text, "\n") {
		lines++
	}
	return nil, wordCountOutput{
		Characters: len(in.Text),
		Runes:      utf8.RuneCountInString(in.Text),
		Words:      len(strings.Fields(in.Text)),
		Lines:      lines,
	}, nil
}

type hashInput struct {
	Text      string `json:"text" jsonschema:"the text whose UTF-8 bytes are hashed"`
	Algorithm string `json:"algorithm,omitempty" jsonschema:"one of sha256 (the default), sha1, md5 or sha512"`
}

func hashText(_ context.Context, _ *mcp.CallToolRequest, in hashInput) (*mcp.CallToolResult, any, error) {
	algo := strings.ToLower(strings.TrimSpace(in.Algorithm))
	var h hash.Hash
	switch algo {
	case "", "sha256", "sha-256":
		algo, h = "sha256", sha256.New()
	case "sha1", "sha-1":
		algo, h = "sha1", sha1.New()
	case "md5":
		h = md5.New()
	case "sha512", "sha-512":
		algo, h = "sha512", sha512.New()
	default:
		return nil, nil, fmt.Errorf("hash: unknown algorithm %q (valid: sha256, sha1, md5, sha512)", in.Algorithm)
	}
	h.Write([]byte(in.Text)) // hash.Hash.Write never returns an error
	return textResult(hex.EncodeToString(h.Sum(nil))), nil, nil
}

type codecInput struct {
	Text   string `json:"text" jsonschema:"the text to encode, or the encoded text to decode"`
	Decode bool   `json:"decode,omitempty" jsonschema:"decode instead of encode (default false)"`
}

func base64Text(_ context.Context, _ *mcp.CallToolRequest, in codecInput) (*mcp.CallToolResult, any, error) {
	if !in.Decode {
		return textResult(base64.StdEncoding.EncodeToString([]byte(in.Text))), nil, nil
	}
	s := strings.TrimSpace(in.Text)
	var firstErr error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		data, err := enc.DecodeString(s)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !utf8.Valid(data) {
			return nil, nil, fmt.Errorf("base64: decoded %d bytes that are not valid UTF-8 text", len(data))
		}
		return textResult(string(data)), nil, nil
	}
	return nil, nil, fmt.Errorf("base64: invalid base64 input: %w", firstErr)
}

func urlEncode(_ context.Context, _ *mcp.CallToolRequest, in codecInput) (*mcp.CallToolResult, any, error) {
	if !in.Decode {
		return textResult(url.QueryEscape(in.Text)), nil, nil
	}
	s, err := url.QueryUnescape(in.Text)
	if err != nil {
		return nil, nil, fmt.Errorf("url_encode: invalid percent-encoding: %w", err)
	}
	return textResult(s), nil, nil
}

type regexInput struct {
	Pattern string `json:"pattern" jsonschema:"the regular expression, in RE2 syntax; use (?i) for case-insensitive matching"`
	Text    string `json:"text" jsonschema:"the text to search"`
	Limit   int    `json:"limit,omitempty" jsonschema:"maximum number of matches to return; 0 (the default) means up to 1000"`
}

// regexMatch is one match reported by regex_find.
type regexMatch struct {
	Match  string   `json:"match"`
	Start  int      `json:"start"`
	End    int      `json:"end"`
	Groups []string `json:"groups,omitempty"`
}

func regexFind(_ context.Context, _ *mcp.CallToolRequest, in regexInput) (*mcp.CallToolResult, any, error) {
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return nil, nil, fmt.Errorf("regex_find: invalid pattern %q: %w", in.Pattern, err)
	}
	if in.Limit < 0 {
		return nil, nil, fmt.Errorf("regex_find: limit must not be negative, got %d", in.Limit)
	}
	limit := in.Limit
	if limit == 0 || limit > maxRegexMatches {
		limit = maxRegexMatches
	}
	matches := []regexMatch{}
	for _, loc := range re.FindAllStringSubmatchIndex(in.Text, limit) {
		m := regexMatch{Match: in.Text[loc[0]:loc[1]], Start: loc[0], End: loc[1]}
		for i := 2; i < len(loc); i += 2 {
			var g string
			if loc[i] >= 0 {
				g = in.Text[loc[i]:loc[i+1]]
			}
			m.Groups = append(m.Groups, g)
		}
		matches = append(matches, m)
	}
	data, err := json.Marshal(matches)
	if err != nil {
		return nil, nil, fmt.Errorf("regex_find: encoding matches: %w", err)
	}
	return textResult(string(data)), nil, nil
}
