module github.com/toolgate/toolgate

go 1.25.0

require (
	codeberg.org/readeck/go-readability/v2 v2.1.3
	github.com/andybalholm/brotli v1.3.0
	github.com/ledongthuc/pdf v0.0.0-20260907135840-6c8c28e0e8a0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/yuin/goldmark v1.8.2
	go.uber.org/goleak v1.3.0
	golang.org/x/net v0.58.0
	golang.org/x/text v0.41.0
)

require (
	github.com/andybalholm/cascadia v1.3.4 // indirect
	github.com/go-shiori/dom v0.0.0-20230515143342-73569d674e1c // indirect
	github.com/gogs/chardet v0.0.0-20211120154057-b7413eaefb8f // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/itlightning/dateparse v0.2.1 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
