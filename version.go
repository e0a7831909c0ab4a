package toolgate

// Version is toolgate's version, sent to servers as the client version.
const Version = "0.1.0"
