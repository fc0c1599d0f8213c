package httpapi

// HostileEntries are contents a full GET body must carry exactly (see
// hostileEntries).
var HostileEntries = hostileEntries
