# Part of tprel_non_tls.s: an ordinary (not thread-local) variable.
    .data
    .globl plain
plain: .quad 5
