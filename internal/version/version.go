// Package version holds toolgate's version, for the packages that the root
// package imports and so cannot import it.
package version

// Version is toolgate's version.
const Version = "0.1.0"
