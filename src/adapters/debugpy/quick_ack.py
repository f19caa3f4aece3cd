# Acknowledges at once what the adapter reads from its sockets (see ADAPTER_MAIN in start.rs): before
# each read, TCP_QUICKACK, which Linux clears again by itself. Where the option does not exist,
# nothing changes.
def _quick_ack(socket):
    option = getattr(socket, "TCP_QUICKACK", None)
    if option is None:
        return
    readinto = socket.SocketIO.readinto

    def quick_readinto(self, buffer):
        try:
            self._sock.setsockopt(socket.IPPROTO_TCP, option, 1)
        except Exception:
            pass
        return readinto(self, buffer)

    socket.SocketIO.readinto = quick_readinto


try:
    _quick_ack(__import__("socket"))
except Exception:
    pass
