//go:build !linux

package sys

// An Rtnetlink is an rtnetlink socket, which only Linux has.
type Rtnetlink struct{}

// A Link is a network link, made or looked up on Linux.
type Link struct{}

// Name is the link's interface name: none here.
func (l *Link) Name() string { return "" }

// OpenRtnetlink reports that rtnetlink is Linux's.
func OpenRtnetlink() (*Rtnetlink, error) { return nil, ErrNotLinux }

// Close does nothing: no socket was opened.
func (r *Rtnetlink) Close() {}

// AddBridge reports that rtnetlink is Linux's.
func (r *Rtnetlink) AddBridge(name string) (*Link, error) { return nil, ErrNotLinux }

// SetVLANFiltering reports that rtnetlink is Linux's.
func (r *Rtnetlink) SetVLANFiltering(br *Link, on bool) error { return ErrNotLinux }

// AddVeth reports that rtnetlink is Linux's.
func (r *Rtnetlink) AddVeth(name, peer string) (*Link, error) { return nil, ErrNotLinux }

// SetMaster reports that rtnetlink is Linux's.
func (r *Rtnetlink) SetMaster(l, master *Link) error { return ErrNotLinux }

// LinkByName reports that rtnetlink is Linux's.
func (r *Rtnetlink) LinkByName(name string) (*Link, error) { return nil, ErrNotLinux }

// SetUp reports that rtnetlink is Linux's.
func (r *Rtnetlink) SetUp(l *Link) error { return ErrNotLinux }

// Delete reports that rtnetlink is Linux's.
func (r *Rtnetlink) Delete(l *Link) error { return ErrNotLinux }
