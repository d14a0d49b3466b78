"""A flood, then a reset (a measurement, run by hand; figures in
docs/experiments/daemon-reliability.md): serve --listen, a client that sends `options` without
reading for 15 s and then resets its connection (SO_LINGER 0); memory 3 s later; SIGTERM.

Usage: flood_reset.py CHECKERSBOT"""
import socket, subprocess, time, sys, threading, struct, signal
binp=sys.argv[1]
p = subprocess.Popen([binp,"serve","--listen","127.0.0.1:0","--info","off","--log-level","info"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={"XDG_CACHE_HOME":"/dev/null/checkersbot-tests-cache"})
port=None
def rd():
    global port
    for l in p.stderr:
        l=l.decode()
        if "listening on" in l and port is None:
            port=int(l.strip().rsplit(":",1)[1])
threading.Thread(target=rd,daemon=True).start()
while port is None: time.sleep(0.05)
def rss():
    for l in open(f"/proc/{p.pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1])
c=socket.create_connection(("127.0.0.1",port)); c.sendall(b"ping\n"); c.recv(100); c.close()
time.sleep(0.5); idle=rss()
s=socket.create_connection(("127.0.0.1",port)); s.settimeout(0.5)
peak=0; t=time.time()
try:
    while time.time()-t<15:
        s.sendall(b"options\n"*1000); peak=max(peak,rss())
except Exception as e: pass
peak=max(peak,rss())
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii',1,0)); s.close()
time.sleep(3); after=rss()
t=time.time(); p.send_signal(signal.SIGTERM); p.wait(); took=time.time()-t
print(f"{binp}: idle {idle} peak {peak} after reset {after} KiB; SIGTERM exit {took:.2f} s")
