package toolgate

import "github.com/toolgate/toolgate/internal/version"

// Version is toolgate's version, sent to servers as the client version.
const Version = version.Version
