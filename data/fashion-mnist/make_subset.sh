#!/bin/sh
# make_subset.sh - the Fashion-MNIST subset the course ships: the first
# NTRAIN training and NTEST test images (and their labels) of the full set,
# as gzip-compressed IDX files like the originals.
#
#   sh data/fashion-mnist/make_subset.sh SRC DEST [NTRAIN [NTEST]]
#
# SRC holds the full set's four .gz files (Debian's dataset-fashion-mnist
# installs them in /usr/share/datasets/fashion-mnist); `make fashion-subset`
# runs this. The output is byte-for-byte reproducible (gzip -n: no name, no
# time stamp). An IDX file is a magic number (0, 0, type 0x08, dimensions)
# and each dimension as a big-endian 32-bit count, then the data.
set -eu
src=$1 dst=$2 ntrain=${3:-4000} ntest=${4:-1000}

# The four bytes of n, big-endian, as printf escapes.
be32() {
    printf '\\%03o\\%03o\\%03o\\%03o' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) \
        $(($1 >> 8 & 255)) $(($1 & 255))
}

# subset NAME COUNT HEADER_BYTES RECORD_BYTES MAGIC_DIMS [ROWS COLS]
subset() {
    name=$1 n=$2 skip=$3 record=$4 dims=$5
    in=$src/$name.gz out=$dst/$name.gz
    [ -r "$in" ] || { echo "make_subset: cannot read $in" >&2; exit 1; }
    header="\\000\\000\\010\\$(printf %03o "$dims")$(be32 "$n")"
    [ "$dims" = 3 ] && header="$header$(be32 28)$(be32 28)"
    {
        # shellcheck disable=SC2059
        printf "$header"
        gzip -dc "$in" | tail -c +$((skip + 1)) | head -c $((n * record))
    } | gzip -9n > "$out.tmp"
    mv "$out.tmp" "$out"
    echo "  $out: $n records"
}

mkdir -p "$dst"
subset train-images-idx3-ubyte "$ntrain" 16 784 3
subset train-labels-idx1-ubyte "$ntrain" 8 1 1
subset t10k-images-idx3-ubyte "$ntest" 16 784 3
subset t10k-labels-idx1-ubyte "$ntest" 8 1 1
