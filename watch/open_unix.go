package watch

import "syscall"

// nonBlockOpenFlag keeps opening a FIFO from blocking until a writer appears.
const nonBlockOpenFlag = syscall.O_NONBLOCK
