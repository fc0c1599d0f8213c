package httpapi

// HostileEntries are contents a full GET body must carry exactly (see
// hostileEntries).
var HostileEntries = hostileEntries

// GzipMinBytes is the smallest body sent gzipped (see gzipMinBytes).
const GzipMinBytes = gzipMinBytes
