
²
benchmark_message1_proto2.protobenchmarks.proto2"÷	
GoogleMessage1
field1 (	Rfield1
field9	 (	Rfield9
field18 (	Rfield18
field80P (:falseRfield80
field81Q (:trueRfield81
field2 (Rfield2
field3 (Rfield3
field280˜ (Rfield280
field6 (:0Rfield6
field22 (Rfield22
field4 (	Rfield4
field5 (Rfield5
field59; (:falseRfield59
field7 (	Rfield7
field16 (Rfield16
field130‚ (:0Rfield130
field12 (:trueRfield12
field17 (:trueRfield17
field13 (:trueRfield13
field14 (:trueRfield14
field104h (:0Rfield104
field100d (:0Rfield100
field101e (:0Rfield101
field102f (	Rfield102
field103g (	Rfield103
field29 (:0Rfield29
field30 (:falseRfield30
field60< (:-1Rfield60
field271 (:-1Rfield271
field272 (:-1Rfield272
field150– (Rfield150
field23 (:0Rfield23
field24 (:falseRfield24
field25 (:0Rfield25E
field15 (2+.benchmarks.proto2.GoogleMessage1SubMessageRfield15
field78N (Rfield78
field67C (:0Rfield67
field68D (Rfield68
field128€ (:0Rfield1282
field129 (	:xxxxxxxxxxxxxxxxxxxxxRfield129
field131ƒ (:0Rfield131"Ú
GoogleMessage1SubMessage
field1 (:0Rfield1
field2 (:0Rfield2
field3 (:0Rfield3
field15 (	Rfield15
field12 (:trueRfield12
field13 (Rfield13
field14 (Rfield14
field16 (Rfield16
field19 (:2Rfield19
field20 (:trueRfield20
field28 (:trueRfield28
field21 (Rfield21
field22 (Rfield22
field23 (:falseRfield23"
field206Î (:falseRfield206
field203Ë (Rfield203
field204Ì (Rfield204
field205Í (	Rfield205
field207Ï (Rfield207
field300¬ (Rfield300B%
com.google.protobuf.benchmarksHø