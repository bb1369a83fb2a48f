;; A typical Navigator program: read context data, compute, journal one step.
(def orders
  [{:id 1 :customer "ada"   :total 120.5 :status :paid}
   {:id 2 :customer "bob"   :total 5000  :status :pending}
   {:id 3 :customer "ada"   :total 80    :status :paid}
   {:id 4 :customer "carol" :total 42.25 :status :refunded}])

(defn paid-by-customer [orders]
  (->> orders
       (filter #(= (:status %) :paid))
       (group-by :customer)
       (map (fn [[customer xs]] [customer (reduce + (map :total xs))]))
       (into {})))

(let [totals (task "paid_totals" (paid-by-customer orders))
      pending (filter (where :status = :pending) orders)]
  (println "pending orders:" (count pending))
  (step-done "1" (str "summed " (count totals) " customers"))
  {:totals totals
   :largest-pending (:id (first (sort-by :total > pending)))})
