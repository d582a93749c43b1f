package sys

import (
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// An Rtnetlink is an rtnetlink socket on the network namespace of the
// thread that opened it, whichever thread later uses it: the bridge
// workload's door to links. Each method sends the requests the netlink
// library sends for it, named in its comment.
type Rtnetlink struct{ h *netlink.Handle }

// A Link is a network link an Rtnetlink made or looked up, with the
// ifindex the kernel gave it.
type Link struct{ l netlink.Link }

// Name is the link's interface name.
func (l *Link) Name() string { return l.l.Attrs().Name }

// OpenRtnetlink opens an rtnetlink socket in the calling thread's network
// namespace.
func OpenRtnetlink() (*Rtnetlink, error) {
	h, err := netlink.NewHandle(unix.NETLINK_ROUTE)
	if err != nil {
		return nil, err
	}
	return &Rtnetlink{h: h}, nil
}

// Close closes the socket.
func (r *Rtnetlink) Close() { r.h.Close() }

// AddBridge adds a bridge: RTM_NEWLINK type bridge, then RTM_GETLINK for
// its ifindex.
func (r *Rtnetlink) AddBridge(name string) (*Link, error) {
	a := netlink.NewLinkAttrs()
	a.Name = name
	br := &netlink.Bridge{LinkAttrs: a}
	if err := r.h.LinkAdd(br); err != nil {
		return nil, err
	}
	return &Link{l: br}, nil
}

// SetVLANFiltering turns a bridge's VLAN filtering on or off: RTM_NEWLINK
// with IFLA_BR_VLAN_FILTERING. The kernel answers EOPNOTSUPP when it was
// built without CONFIG_BRIDGE_VLAN_FILTERING.
func (r *Rtnetlink) SetVLANFiltering(br *Link, on bool) error {
	return r.h.BridgeSetVlanFiltering(br.l, on)
}

// AddVeth adds a veth pair: RTM_NEWLINK type veth with its peer, then
// RTM_GETLINK for name's ifindex.
func (r *Rtnetlink) AddVeth(name, peer string) (*Link, error) {
	a := netlink.NewLinkAttrs()
	a.Name = name
	v := netlink.NewVeth(a)
	v.PeerName = peer
	if err := r.h.LinkAdd(v); err != nil {
		return nil, err
	}
	return &Link{l: v}, nil
}

// SetMaster enslaves l to master: RTM_SETLINK with IFLA_MASTER.
func (r *Rtnetlink) SetMaster(l, master *Link) error {
	return r.h.LinkSetMaster(l.l, master.l)
}

// LinkByName looks a link up: RTM_GETLINK.
func (r *Rtnetlink) LinkByName(name string) (*Link, error) {
	l, err := r.h.LinkByName(name)
	if err != nil {
		return nil, err
	}
	return &Link{l: l}, nil
}

// SetUp brings l up: RTM_NEWLINK with IFF_UP.
func (r *Rtnetlink) SetUp(l *Link) error { return r.h.LinkSetUp(l.l) }

// Delete deletes l: RTM_DELLINK (a veth's peer goes with it).
func (r *Rtnetlink) Delete(l *Link) error { return r.h.LinkDel(l.l) }
