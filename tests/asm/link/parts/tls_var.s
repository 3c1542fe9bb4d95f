# Part of abs_tls.s: a thread-local variable.
    .section .tdata, "awT", @progbits
    .globl counter
    .type counter, @tls_object
counter: .quad 7
