package mysqlwire

import "testing"

// TestErrorPacket: the ERR packet sent in place of the handshake.
func TestErrorPacket(t *testing.T) {
	p := errorPacket(1040, "08004", "Too many connections")
	if len(p) != 4+1+2+1+5+20 || p[4] != 0xff || p[5] != 0x10 || p[6] != 0x04 || p[3] != 0 {
		t.Errorf("error packet %x", p)
	}
}
