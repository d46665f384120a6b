package model

import (
	"encoding/hex"
	"fmt"
	"image"
	_ "image/jpeg" // screenshots may be JPEG
	_ "image/png"
	"math/bits"
	"os"
)

// The replay client keys a recorded judge's replies to the screenshots they
// describe. Exact bytes would not do: two machines of the same kind render
// a page a few pixels apart (font hinting, antialiasing) and encode the same
// pixels into different PNG files. A difference hash survives that and still
// tells pages apart: the image is shrunk to a grid of grey levels, and each
// bit says whether a cell is clearly darker than its right-hand neighbour.
// Shapes of text and boxes move bits; a pixel here and there does not.
const (
	// Text runs across a page, so the grid is finer across than down;
	// one column more than the bits of a row.
	hashCols = 64
	hashRows = 32
	// HashBits is the length of an ImageHash in bits.
	HashBits = hashCols * hashRows
	// hashDeadZone is how much brighter (of 65535) a cell must be than its
	// left neighbour to set a bit: a blank page is mostly cells of one
	// grey, whose bits the least noise would otherwise flip.
	hashDeadZone = 256
	// ImageHashTolerance is the distance up to which two hashes are taken
	// for the same picture: 1/128 of the bits. On the demo shop, pages
	// that differ only in the book shown are 42 bits and more apart; the
	// same page re-encoded as JPEG moved 4 bits at most, smeared by half a
	// pixel 12.
	ImageHashTolerance = HashBits / 128
)

// ImageHash is the difference hash of a PNG or JPEG file, as hex.
func ImageHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("image hash: %w", err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return "", fmt.Errorf("image hash: %s: %w", path, err)
	}
	return hex.EncodeToString(diffHash(img)), nil
}

// diffHash shrinks img to (hashCols+1) x hashRows grey cells, each the mean
// of the pixels it covers, and compares neighbours in each row.
func diffHash(img image.Image) []byte {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	cols := hashCols + 1
	sum := make([]float64, cols*hashRows)
	count := make([]float64, cols*hashRows)
	for y := 0; y < h; y++ {
		row := y * hashRows / max(h, 1)
		for x := 0; x < w; x++ {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			// ITU-R BT.601 luma, on 16-bit channels.
			grey := 0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)
			i := row*cols + x*cols/max(w, 1)
			sum[i] += grey
			count[i]++
		}
	}
	out := make([]byte, HashBits/8)
	for row := 0; row < hashRows; row++ {
		for col := 0; col < hashCols; col++ {
			i, j := row*cols+col, row*cols+col+1
			if mean(sum[i], count[i])+hashDeadZone < mean(sum[j], count[j]) {
				n := row*hashCols + col
				out[n/8] |= 1 << (7 - n%8)
			}
		}
	}
	return out
}

func mean(sum, n float64) float64 {
	if n == 0 {
		return 0
	}
	return sum / n
}

// HashDistance is how many bits two image hashes differ in; an error when
// either is not a hash of HashBits bits.
func HashDistance(a, b string) (int, error) {
	x, err := decodeHash(a)
	if err != nil {
		return 0, err
	}
	y, err := decodeHash(b)
	if err != nil {
		return 0, err
	}
	d := 0
	for i := range x {
		d += bits.OnesCount8(x[i] ^ y[i])
	}
	return d, nil
}

func decodeHash(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != HashBits/8 {
		return nil, fmt.Errorf("image hash %q: want %d hex digits", clipHash(s), HashBits/4)
	}
	return b, nil
}

func clipHash(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}
