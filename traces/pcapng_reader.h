// traces/pcapng_reader.h - packets of a pcapng capture, read block by block.
//
// Why a reader of our own: libpcap 1.10 gives one link type and one snapshot length per file,
// so it refuses an Interface Description Block whose link type or snap length differs from the
// first one - exactly what dumpcap writes when it captures several interfaces - and such a file
// read as its first few packets. Wireshark's libwiretap reads them, but drags in glib and
// Wireshark's plugin system for a format that is small and fully specified (IETF
// draft-ietf-opsawg-pcapng). So this file parses the blocks itself and hands each packet's bytes
// to ParseFrame with its own interface's link type and snapshot length; classic pcap stays on
// libpcap (traces/pcap_reader.cc dispatches on the magic).
//
// Blocks read:
//   Section Header (0x0A0D0D0A)  byte-order magic 0x1A2B3C4D in either order, major version 1.
//       Each section has its own byte order and its own interface table; its section length
//       (-1 allowed) is not used, as blocks are read in sequence.
//   Interface Description (1)    link type, snap length (0: no limit), if_tsresol (code 9:
//       10^-x s, or 2^-x s with bit 7 set; default 10^-6; finer than 10^-19 or 2^-63 is refused,
//       as libpcap does) and if_tsoffset (code 14, signed seconds added to every timestamp).
//   Enhanced Packet (6)          interface id, 64-bit timestamp, captured and original length.
//   Simple Packet (3)            interface 0, no timestamp (0), captured length =
//       min(original length, snap length, bytes in the block).
//   Packet (2, obsolete)         as an Enhanced Packet Block with a 16-bit interface id.
//   Every other block (name resolution, interface statistics, decryption secrets, custom, ...)
//   is skipped whole.
// A packet's captured length is cut to its interface's snap length, as libpcap does. Timestamps
// become nanoseconds exactly (128-bit integer math, fractions of a nanosecond dropped), clamped
// to [0, 2^64) when an offset or a corrupt value would leave that range.
//
// Link types: as libpcap reports them (LINKTYPE_RAW 101 is DLT_RAW 12), so a raw-IP pcapng file
// keeps the link_type it had when libpcap read it. An interface of an unsupported link type is
// allowed when the file has a supported one too: its packets are counted and skipped as non_ip,
// since nothing in them can be decoded as a flow. A file none of whose interfaces with packets
// is supported (or, without packets, none of whose interfaces is) is an InputError, as is a file
// that describes no interface at all. The summary's link_type is the first interface's;
// `interfaces` counts Interface Description Blocks over all sections and `link_types` lists
// their distinct link types in order of first appearance.
//
// Errors. A file that ends inside its last block (or its block header) is a truncated last
// record: the packets before it are kept, `truncated_records` is 1 and `read_error` says where;
// a block length that runs past the end of the file counts as that too, since the two cannot be
// told apart. Every other structural fault throws InputError, one line naming the file, the
// block's byte offset and the fault: a first block that is not a Section Header, a bad
// byte-order magic or major version, a block total length < 12 (28 for a section header), not
// a multiple of 4, over 256 MiB, or different in header and trailer, a packet block for an
// interface the section never described, a captured length that overruns its block, a malformed
// if_tsresol / if_tsoffset option or an option that overruns its block. No allocation is larger
// than the block being read, which is never larger than the rest of the file.
#pragma once

#include <string>

#include "traces/pcap_reader.h"

namespace amq {

// Streams every kept packet of a pcapng file to `sink`, in file order.
ReadSummary ReadPcapng(const std::string& path, const RecordSink& sink);

}  // namespace amq
