package loadgen

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The V2 encoding's cookies, as hdrhistogram-go writes them.
const (
	v2Cookie           = hdrhistogram.V2EncodingCookieBase | 0x10
	v2CompressedCookie = hdrhistogram.V2CompressedEncodingCookieBase | 0x10
)

// A histEncoder writes a histogram in the standard compressed V2 encoding
// (HISTFAAA...), byte for byte what hdrhistogram-go's Encode writes, but
// with its buffers and its zlib writer kept from one call to the next: Encode
// allocates a zlib writer at best compression (about 800 KB and a thousand
// allocations) on every call, and an interval report is one every 100 ms in
// a process that shares its CPUs with the load. What is left per call is
// the copy of the counts that Export makes.
type histEncoder struct {
	raw []byte // the uncompressed encoding
	z   bytes.Buffer
	zw  *zlib.Writer
	out []byte // cookie, length, compressed bytes
	b64 []byte
}

// encode returns h's encoding.
func (e *histEncoder) encode(h *hdrhistogram.Histogram) (string, error) {
	s := h.Export()
	e.raw = e.appendRaw(e.raw[:0], s)
	e.z.Reset()
	if e.zw == nil {
		zw, err := zlib.NewWriterLevel(&e.z, zlib.BestCompression)
		if err != nil {
			return "", err
		}
		e.zw = zw
	} else {
		e.zw.Reset(&e.z)
	}
	if _, err := e.zw.Write(e.raw); err != nil {
		return "", err
	}
	if err := e.zw.Close(); err != nil {
		return "", err
	}
	e.out = binary.BigEndian.AppendUint32(e.out[:0], uint32(v2CompressedCookie))
	e.out = binary.BigEndian.AppendUint32(e.out, uint32(e.z.Len()))
	e.out = append(e.out, e.z.Bytes()...)
	e.b64 = base64.StdEncoding.AppendEncode(e.b64[:0], e.out)
	return string(e.b64), nil
}

// appendRaw appends the uncompressed V2 encoding of s: a 40-byte header,
// then the counts up to the last one that is not zero (the first one when
// all are) in ZigZag LEB128, a run of zeros as its negated length.
func (e *histEncoder) appendRaw(b []byte, s *hdrhistogram.Snapshot) []byte {
	limit := 1
	for i := len(s.Counts) - 1; i > 0; i-- {
		if s.Counts[i] != 0 {
			limit = i + 1
			break
		}
	}
	ratio := s.IntegerToDoubleConversionRatio
	if ratio == 0 {
		ratio = 1
	}
	b = binary.BigEndian.AppendUint32(b, uint32(v2Cookie))
	lenAt := len(b)
	b = binary.BigEndian.AppendUint32(b, 0) // the counts' length, below
	b = binary.BigEndian.AppendUint32(b, 0) // normalizing index offset
	b = binary.BigEndian.AppendUint32(b, uint32(s.SignificantFigures))
	b = binary.BigEndian.AppendUint64(b, uint64(s.LowestTrackableValue))
	b = binary.BigEndian.AppendUint64(b, uint64(s.HighestTrackableValue))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(ratio))
	start := len(b)
	for i := 0; i < limit; {
		c := s.Counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < limit && s.Counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				c = -zeros
			}
		}
		b = appendZigZag(b, c)
	}
	binary.BigEndian.PutUint32(b[lenAt:], uint32(len(b)-start))
	return b
}

// appendZigZag appends v in ZigZag LEB128 as HdrHistogram writes it: at
// most nine bytes, the ninth carrying a whole byte.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}
