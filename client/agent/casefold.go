package agent

import "runtime"

// caseInsensitiveFS says whether the local file system folds case by
// default: NTFS on Windows and APFS on macOS do, so two server keys that
// differ only in case cannot both be files there.
var caseInsensitiveFS = runtime.GOOS == "windows" || runtime.GOOS == "darwin"
