package agent

import "io/fs"

// fileID is what a file looked like when it was scanned: a write, a
// rename over it or a change of its metadata changes it. Where the
// platform gives no inode or change time they stay zero, and size and
// modification time decide alone.
type fileID struct {
	size    int64
	mtimeNS int64
	inode   uint64
	ctimeNS int64
}

// fileIDOf returns the identity of a file from its Lstat information.
func fileIDOf(fi fs.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtimeNS: fi.ModTime().UnixNano()}
	id.inode, id.ctimeNS = sysIdentity(fi)
	return id
}
