# cython: language_level=3
"""The byte-identical scan's listing and first reads compiled ahead of time (POSIX only).

``walk.walk_by_size`` lists one folder at a time here (opendir, readdir, fstatat relative to
the folder: no link followed), and ``byte_reads`` reads the first bytes of a run of files of
one size here (open, fstat, read, pread, close, the interpreter lock released around them).
Both do what the Python path does, for the cases that make up nearly every folder; a folder
with anything else in it (a special file, an entry that cannot be stat'ed, a file on another
device, a file system whose inode numbers do not name files, an identity of 0) is answered
``None`` and the Python walk lists it, with its errors, exactly as it does without this
module. Entries come in the order Python's ``sorted`` gives their names (code points,
``PyUnicode_Compare``), files before the folders are walked, and a file is admitted once per
(device, inode) through the same ``seen`` set the Python walk uses.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.unicode cimport PyUnicode_Compare
from libc.errno cimport EINTR, errno
from libc.string cimport memcmp, strlen

cdef extern from "Python.h":
    object PyUnicode_EncodeFSDefault(object)
    object PyUnicode_DecodeFSDefaultAndSize(const char *text, Py_ssize_t size)

cdef extern from "<stdlib.h>":
    # called with the interpreter lock held: the comparison calls into Python's str
    void qsort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *) noexcept)
    void qsort_nogil "qsort" (void *base, size_t count, size_t size, int (*compare)(const void *, const void *) noexcept nogil) nogil

cdef extern from *:
    """
    #include <dirent.h>
    #include <fcntl.h>
    #include <sys/stat.h>
    #include <sys/types.h>
    #include <unistd.h>
    #ifndef O_CLOEXEC
    #define O_CLOEXEC 0
    #endif
    #ifndef O_DIRECTORY
    #define O_DIRECTORY 0
    #endif
    #if defined(__APPLE__)
    #define DF_MTIME_SEC(s) ((long long)(s).st_mtimespec.tv_sec)
    #define DF_MTIME_NSEC(s) ((long long)(s).st_mtimespec.tv_nsec)
    #define DF_CTIME_SEC(s) ((long long)(s).st_ctimespec.tv_sec)
    #define DF_CTIME_NSEC(s) ((long long)(s).st_ctimespec.tv_nsec)
    #else
    #define DF_MTIME_SEC(s) ((long long)(s).st_mtim.tv_sec)
    #define DF_MTIME_NSEC(s) ((long long)(s).st_mtim.tv_nsec)
    #define DF_CTIME_SEC(s) ((long long)(s).st_ctim.tv_sec)
    #define DF_CTIME_NSEC(s) ((long long)(s).st_ctim.tv_nsec)
    #endif
    #define DF_ISREG(m) S_ISREG(m)
    #define DF_ISDIR(m) S_ISDIR(m)
    #define DF_ISLNK(m) S_ISLNK(m)
    #ifdef DT_UNKNOWN
    #define DF_DTYPE(e) ((e)->d_type)
    #define DF_DT_LNK DT_LNK
    #define DF_DT_UNKNOWN DT_UNKNOWN
    #else
    #define DF_DTYPE(e) 0
    #define DF_DT_LNK 1
    #define DF_DT_UNKNOWN 0
    #endif
    """
    ctypedef struct DIR:
        pass
    struct dirent:
        char d_name[1]
    struct stat_t "stat":
        unsigned long long st_dev
        unsigned long long st_ino
        unsigned int st_mode
        unsigned long long st_nlink
        long long st_size
    int O_RDONLY, O_CLOEXEC, O_DIRECTORY, AT_SYMLINK_NOFOLLOW
    int DF_DT_LNK, DF_DT_UNKNOWN
    int open(const char *path, int flags) nogil
    int close(int fd) nogil
    DIR *fdopendir(int fd) nogil
    dirent *readdir(DIR *d) nogil
    int closedir(DIR *d) nogil
    int fstat(int fd, stat_t *info) nogil
    int fstatat(int dirfd, const char *name, stat_t *info, int flags) nogil
    ssize_t pread(int fd, void *buffer, size_t count, long long offset) nogil
    long long DF_MTIME_SEC(stat_t s) nogil
    long long DF_MTIME_NSEC(stat_t s) nogil
    long long DF_CTIME_SEC(stat_t s) nogil
    long long DF_CTIME_NSEC(stat_t s) nogil
    bint DF_ISREG(unsigned int mode) nogil
    bint DF_ISDIR(unsigned int mode) nogil
    bint DF_ISLNK(unsigned int mode) nogil
    int DF_DTYPE(dirent *entry) nogil


#: Returned for a file that is no longer the one the walk listed (other size or identity, or
#: shorter than its size while read).
cdef enum:
    _CHANGED = -1
CHANGED = _CHANGED

#: Seconds past which a time in nanoseconds no longer fits 64 bits (computed in Python then).
cdef long long _SECONDS_FIT = 9000000000


cdef class FileStat:
    """What the walk keeps of a file's stat: the fields a byte-identical scan reads, named as
    ``os.stat_result`` names them."""

    cdef readonly unsigned int st_mode
    cdef readonly unsigned long long st_ino
    cdef readonly unsigned long long st_dev
    cdef readonly unsigned long long st_nlink
    cdef readonly long long st_size
    cdef readonly object st_mtime_ns
    cdef readonly object st_ctime_ns

    def __repr__(self) -> str:
        return (
            f"FileStat(st_mode={self.st_mode}, st_ino={self.st_ino}, st_dev={self.st_dev}, "
            f"st_nlink={self.st_nlink}, st_size={self.st_size}, "
            f"st_mtime_ns={self.st_mtime_ns}, st_ctime_ns={self.st_ctime_ns})"
        )


cdef object _ns(long long seconds, long long nanoseconds):
    """A time in nanoseconds, as ``os.stat`` gives it (a Python int of any size)."""
    if -_SECONDS_FIT < seconds < _SECONDS_FIT:
        return seconds * 1000000000 + nanoseconds
    return <object>seconds * 1000000000 + nanoseconds


cdef FileStat _stat_of(stat_t *info):
    cdef FileStat found = FileStat.__new__(FileStat)
    found.st_mode = info.st_mode
    found.st_ino = info.st_ino
    found.st_dev = info.st_dev
    found.st_nlink = info.st_nlink
    found.st_size = info.st_size
    found.st_mtime_ns = _ns(DF_MTIME_SEC(info[0]), DF_MTIME_NSEC(info[0]))
    found.st_ctime_ns = _ns(DF_CTIME_SEC(info[0]), DF_CTIME_NSEC(info[0]))
    return found


cdef struct _Entry:
    void *name  # the name as a str (a borrowed reference into ``names``)
    char *raw  # its bytes, as the folder lists them (owned)
    int dtype


cdef int _by_name(const void *a, const void *b) noexcept:
    """Code-point order of the names, as ``sorted`` orders str (names in one folder differ)."""
    return PyUnicode_Compare(<object>(<_Entry *>a).name, <object>(<_Entry *>b).name)


cdef str _joined(str folder, str name):
    """The entry's path as ``os.scandir`` spells ``DirEntry.path``."""
    if folder.endswith("/"):
        return folder + name
    return folder + "/" + name


def folder_by_size(
    str folder,
    bint hidden,
    long long min_size,
    long long max_size,
    dict by_device,
    set seen_files,
    dict by_size,
    object kind,
):
    """List one folder: its regular files of ``min_size`` to ``max_size`` bytes (``max_size``
    below 0: no limit), each (device, inode) not in ``seen_files`` added there and appended to
    ``by_size[size]`` as ``(path, FileStat, kind)``; hidden names only if ``hidden``; symbolic
    links passed over and counted.

    Returns ``(folders, added, again, links)``: the sub-folders as ``(path, name, FileStat)``
    in name order, the count of files added, of files passed over as another name of one
    already seen, and of links passed over. ``None`` (and nothing added) where the folder
    holds anything the Python walk must answer: it cannot be opened or an entry stat'ed, a
    special file, a file on another device, a device whose inode numbers are not known to
    name files, an identity of 0."""
    cdef bytes encoded = PyUnicode_EncodeFSDefault(folder)
    cdef int fd, dtype
    cdef DIR *listing
    cdef dirent *entry
    cdef stat_t own, info
    cdef _Entry *entries = NULL
    cdef _Entry *grown
    cdef stat_t *stats = NULL
    cdef Py_ssize_t count = 0, capacity = 0, i, length
    cdef char *raw
    cdef const char *name_bytes
    cdef bint odd = False
    cdef const char *where = PyBytes_AS_STRING(encoded)
    names = []
    with nogil:
        fd = open(where, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd < 0:
        return None
    if fstat(fd, &own) != 0 or own.st_ino == 0 or by_device.get(own.st_dev) is not True:
        close(fd)
        return None
    listing = fdopendir(fd)
    if listing == NULL:
        close(fd)
        return None
    try:
        while True:
            with nogil:
                entry = readdir(listing)
            if entry == NULL:
                break
            name_bytes = entry.d_name
            length = <Py_ssize_t>strlen(name_bytes)
            if name_bytes[0] == b"." and (
                length == 1 or (length == 2 and name_bytes[1] == b".")
            ):
                continue
            if not hidden and name_bytes[0] == b".":
                continue
            if count == capacity:
                capacity = capacity * 2 if capacity else 64
                grown = <_Entry *>PyMem_Realloc(entries, capacity * sizeof(_Entry))
                if grown == NULL:
                    raise MemoryError()
                entries = grown
            raw = <char *>PyMem_Malloc(length + 1)
            if raw == NULL:
                raise MemoryError()
            for i in range(length + 1):
                raw[i] = name_bytes[i]
            name = PyUnicode_DecodeFSDefaultAndSize(raw, length)
            names.append(name)
            entries[count].name = <void *>name
            entries[count].raw = raw
            entries[count].dtype = DF_DTYPE(entry)
            count += 1
        if count > 1:
            qsort(entries, count, sizeof(_Entry), _by_name)
        stats = <stat_t *>PyMem_Malloc((count if count else 1) * sizeof(stat_t))
        if stats == NULL:
            raise MemoryError()
        # first every entry's stat, so that a folder handed back to Python changed nothing
        with nogil:
            for i in range(count):
                if entries[i].dtype == DF_DT_LNK:
                    stats[i].st_mode = 0
                    continue
                if fstatat(fd, entries[i].raw, &stats[i], AT_SYMLINK_NOFOLLOW) != 0:
                    odd = True
                    break
                if DF_ISLNK(stats[i].st_mode):
                    entries[i].dtype = DF_DT_LNK
                    continue
                if stats[i].st_ino == 0:
                    odd = True
                    break
                if DF_ISREG(stats[i].st_mode):
                    if stats[i].st_dev != own.st_dev:
                        odd = True
                        break
                elif not DF_ISDIR(stats[i].st_mode):
                    odd = True
                    break
        if odd:
            return None
        folders = []
        added = again = links = 0
        for i in range(count):
            if entries[i].dtype == DF_DT_LNK:
                links += 1
                continue
            name = <object>entries[i].name
            if DF_ISDIR(stats[i].st_mode):
                folders.append((_joined(folder, name), name, _stat_of(&stats[i])))
                continue
            if stats[i].st_size < min_size or (0 <= max_size < stats[i].st_size):
                continue
            key = (stats[i].st_dev, stats[i].st_ino)
            if key in seen_files:
                again += 1
                continue
            seen_files.add(key)
            size = stats[i].st_size
            same = by_size.get(size)
            if same is None:
                same = by_size[size] = []
            same.append((_joined(folder, name), _stat_of(&stats[i]), kind))
            added += 1
        return folders, added, again, links
    finally:
        closedir(listing)  # closes fd
        for i in range(count):
            PyMem_Free(entries[i].raw)
        PyMem_Free(entries)
        PyMem_Free(stats)


cdef int _read_at(int fd, char *buffer, long long count, long long offset) noexcept nogil:
    """Read ``count`` bytes at ``offset``: 0, ``_CHANGED`` where the file ends before them,
    else the ``errno`` (a read a signal cut short is tried again, as Python's own is)."""
    cdef long long got = 0
    cdef ssize_t done
    while got < count:
        done = pread(fd, buffer + got, count - got, offset + got)
        if done < 0:
            if errno == EINTR:
                continue
            return errno
        if done == 0:
            return _CHANGED
        got += done
    return 0


cdef int _read_first(
    const char *path,
    char *buffer,
    long long size,
    unsigned long long dev,
    unsigned long long ino,
    long long small,
    long long partial,
) noexcept nogil:
    """A file's first read into ``buffer``: all of it up to ``small`` bytes, else its first and
    last ``partial`` bytes, once it is seen to be still the walk's file. 0, ``_CHANGED`` or
    the ``errno``."""
    cdef stat_t now
    cdef int failure
    cdef int fd = open(path, O_RDONLY | O_CLOEXEC)
    while fd < 0 and errno == EINTR:
        fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0:
        return errno
    if fstat(fd, &now) != 0:
        failure = errno
    elif now.st_size != size or now.st_ino != ino or now.st_dev != dev:
        failure = _CHANGED
    elif size <= small:
        failure = _read_at(fd, buffer, size, 0)
    else:
        failure = _read_at(fd, buffer, partial, 0)
        if failure == 0:
            failure = _read_at(fd, buffer + partial, partial, size - partial)
    close(fd)
    return failure


cdef class _Batch:
    """The files ``start`` to ``stop`` of a list of ``(path, stat, kind)``, as C reads them:
    their encoded paths (kept alive here), sizes and identities."""

    cdef list encoded
    cdef const char **paths
    cdef long long *sizes
    cdef unsigned long long *devs
    cdef unsigned long long *inos
    cdef Py_ssize_t count

    def __cinit__(self, list files, Py_ssize_t start, Py_ssize_t stop):
        cdef Py_ssize_t i
        cdef bytes path
        self.count = stop - start if stop > start else 0
        self.encoded = []
        self.paths = <const char **>PyMem_Malloc((self.count + 1) * sizeof(char *))
        self.sizes = <long long *>PyMem_Malloc((self.count + 1) * sizeof(long long))
        self.devs = <unsigned long long *>PyMem_Malloc((self.count + 1) * sizeof(long long))
        self.inos = <unsigned long long *>PyMem_Malloc((self.count + 1) * sizeof(long long))
        if not (self.paths and self.sizes and self.devs and self.inos):
            raise MemoryError()
        for i in range(self.count):
            name, walked, _ = files[start + i]
            path = PyUnicode_EncodeFSDefault(name)
            self.encoded.append(path)
            self.paths[i] = PyBytes_AS_STRING(path)
            self.sizes[i] = walked.st_size
            self.devs[i] = walked.st_dev
            self.inos[i] = walked.st_ino

    def __dealloc__(self):
        PyMem_Free(self.paths)
        PyMem_Free(self.sizes)
        PyMem_Free(self.devs)
        PyMem_Free(self.inos)


def first_reads(list files, Py_ssize_t start, Py_ssize_t stop, long long small, long long partial):
    """The first read of each of ``files[start:stop]`` (``(path, stat, kind)``, all of one
    size): the whole file up to ``small`` bytes, else its first and last ``partial`` bytes,
    each opened once and checked to be still the walk's file (size, device, inode).

    Each answer is the bytes read, ``CHANGED`` (-1) for a file that is not the one listed, or
    the ``errno`` (above 0) of a file that could not be read."""
    cdef _Batch batch = _Batch(files, start, stop)
    cdef Py_ssize_t i
    cdef long long size
    cdef int failure
    cdef char *buffer
    answers = []
    for i in range(batch.count):
        size = batch.sizes[i]
        data = PyBytes_FromStringAndSize(NULL, size if size <= small else 2 * partial)
        buffer = PyBytes_AS_STRING(data)
        with nogil:
            failure = _read_first(
                batch.paths[i], buffer, size, batch.devs[i], batch.inos[i], small, partial
            )
        answers.append(data if failure == 0 else failure)
    return answers


cdef struct _Read:
    const char *data
    size_t width
    Py_ssize_t index


cdef int _by_content(const void *a, const void *b) noexcept nogil:
    """Equal first reads side by side, each run in the order its files came."""
    cdef const _Read *x = <const _Read *>a
    cdef const _Read *y = <const _Read *>b
    cdef int order = memcmp(x.data, y.data, x.width)
    if order != 0:
        return order
    return (x.index > y.index) - (x.index < y.index)


def batch_sets(list sizes, list pieces, long long small, long long partial):
    """:func:`first_reads` of whole sets of files, compared here: the interpreter makes no
    object per file, only one per set of equal files. ``pieces`` holds ``(position, start,
    stop)``: the files ``start`` to ``stop`` of ``sizes[position]`` (files of one size).

    Returns ``(found, read)``: for each piece with a set or a failure, ``(position, sets,
    failed)``: each set of two or more files whose first reads are the same bytes as
    ``(indices, first read)``, indices into ``sizes[position]`` in the order the files came,
    sets in the order of their first file; ``(index, answer)`` for each file that could not be
    read (``CHANGED`` or the ``errno``); and the count of files read."""
    found = []
    read = 0
    for position, start, stop in pieces:
        sets, failed, good = _piece_sets(sizes[position], start, stop, small, partial)
        read += good
        if sets or failed:
            found.append((position, sets, failed))
    return found, read


cdef tuple _piece_sets(
    list files, Py_ssize_t start, Py_ssize_t stop, long long small, long long partial
):
    """One piece of :func:`batch_sets`: ``(sets, failed, read)``. The first reads go side by
    side into one buffer, sorted by their bytes (a run of equal ones in the order the files
    came), and each run of two or more is a set."""
    cdef _Batch batch = _Batch(files, start, stop)
    cdef Py_ssize_t i, j, count = batch.count, good = 0, first
    cdef long long size = batch.sizes[0] if count else 0
    cdef size_t width = <size_t>(size if size <= small else 2 * partial)
    cdef char *buffer = <char *>PyMem_Malloc(count * width + 1)
    cdef _Read *reads = <_Read *>PyMem_Malloc((count + 1) * sizeof(_Read))
    cdef int *failures = <int *>PyMem_Malloc((count + 1) * sizeof(int))
    try:
        if buffer == NULL or reads == NULL or failures == NULL:
            raise MemoryError()
        with nogil:
            for i in range(count):
                failures[i] = _read_first(
                    batch.paths[i],
                    buffer + i * width,
                    batch.sizes[i] if batch.sizes[i] == size else -1,  # not one size: changed
                    batch.devs[i],
                    batch.inos[i],
                    small,
                    partial,
                )
                if failures[i] == 0:
                    reads[good].data = buffer + i * width
                    reads[good].width = width
                    reads[good].index = i
                    good += 1
            if good > 1:
                qsort_nogil(reads, good, sizeof(_Read), _by_content)
        sets = []
        i = 0
        while i < good:
            j = i + 1
            while j < good and memcmp(reads[i].data, reads[j].data, width) == 0:
                j += 1
            if j - i > 1:
                first = reads[i].index
                sets.append(
                    (first, [start + reads[k].index for k in range(i, j)], reads[i].data[:width])
                )
            i = j
        sets.sort()
        failed = [(start + i, failures[i]) for i in range(count) if failures[i] != 0]
        return [(positions, data) for _, positions, data in sets], failed, good
    finally:
        PyMem_Free(buffer)
        PyMem_Free(reads)
        PyMem_Free(failures)
